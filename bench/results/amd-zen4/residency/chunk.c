/* Zen 4 probe: ticks of one temporal chunk (the library's avx2 kernel, the library's counter)
 * on a target just cleared (hot, per buffer size), and on random slots of a 4 GiB pool. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "counter.h"
void cp_x86_64_avx2(void *, size_t);
void cp_x86_64_avx2_nt(void *, size_t);
static int cmp(const void*a,const void*b){uint64_t x=*(uint64_t*)a,y=*(uint64_t*)b;return x<y?-1:x>y;}
#define N 401
static uint64_t chunk(char *p, size_t pages){uint64_t t0=cp__counter_start(); cp_x86_64_avx2(p,pages); return cp__counter_read()-t0;}
static void pr(const char *what, size_t S, size_t c, uint64_t *a, uint64_t lim){
  int over=0; for(int i=0;i<N;i++) over += a[i]>lim;
  qsort(a,N,8,cmp);
  printf("%-14s S=%6zuK c=%2zuK p10 %6lu p50 %6lu p90 %6lu  over limit %lu: %3d/%d\n",what,S>>10,c*4,a[N/10],a[N/2],a[9*N/10],lim,over,N);
}
int main(int argc,char**argv){
  size_t pool=4ul<<30; char*P=mmap(0,pool+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  P=(char*)(((uintptr_t)P+(2<<20)-1)&~((uintptr_t)(2<<20)-1));
  madvise(P,pool,MADV_HUGEPAGE);
  for(int r=0;r<3;r++) memset(P,r+1,pool);
  double ghz = argc>1? atof(argv[1]) : 2.596;
  size_t sizes[]={256<<10, 1<<20, 2<<20, 4<<20,8<<20, 16<<20, 32<<20};
  size_t chunks[]={4,8,16};
  unsigned mbps[] = {52000, 30000, 20000};
  for(int ci=0;ci<3;ci++){ size_t c=chunks[ci];
    uint64_t lim = (uint64_t)(c*4096/(mbps[0]*1e6)*ghz*1e9);
    for(int si=0;si<7;si++){ size_t S=sizes[si]; uint64_t a[N], b[N];
      char*H=mmap(0,S,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0); madvise(H,S,MADV_HUGEPAGE); memset(H,1,S);
      for(int i=0;i<N;i++){ cp_x86_64_avx2(H,S/4096); cp_x86_64_avx2(H,S/4096); a[i]=chunk(H,c); }
      pr("hot(avx2)",S,c,a,lim);
      for(int i=0;i<N;i++){ cp_x86_64_avx2_nt(H,S/4096); cp_x86_64_avx2(H,S/4096); b[i]=chunk(H,c); }
      pr("hot(after nt)",S,c,b,lim);
      munmap(H,S);
    }
    uint64_t r[N];
    for(int i=0;i<N;i++){size_t off=((size_t)random()*4096)%(pool-(1<<20)); off&=~4095ul; r[i]=chunk(P+off,c);}
    pr("cold pool",pool,c,r,lim);
  }
}
