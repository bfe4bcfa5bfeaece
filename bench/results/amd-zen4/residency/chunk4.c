/* Zen 4 probe: ticks of one 4 KiB (and 16 KiB) temporal chunk, hot buffers 4K..32M cleared
 * by avx2_nt (as cold_call leaves them) or avx2 before, and the 4 GiB pool. */
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
static void pr(const char *what, size_t S, size_t c, uint64_t *a){
  double ghz=2.596; unsigned th[]={52000,30000,20000,16000,12000}; char o[200]; int n=0;
  for(int t=0;t<5;t++){ uint64_t lim=(uint64_t)(c*4096.0/(th[t]*1e6)*ghz*1e9); int over=0; for(int i=0;i<N;i++) over+=a[i]>lim; n+=sprintf(o+n," %u:%lu:%d",th[t],lim,over);}
  qsort(a,N,8,cmp);
  printf("%-14s S=%7zuK c=%2zuK p10 %6lu p50 %6lu p90 %6lu  over(mbps:limit:n/%d)%s\n",what,S>>10,c*4,a[N/10],a[N/2],a[9*N/10],N,o);
}
int main(void){
  size_t pool=4ul<<30; char*P=mmap(0,pool+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  P=(char*)(((uintptr_t)P+(2<<20)-1)&~((uintptr_t)(2<<20)-1));
  madvise(P,pool,MADV_HUGEPAGE);
  for(int r=0;r<3;r++) memset(P,r+1,pool);
  size_t sizes[]={4<<10,16<<10,64<<10,256<<10,1<<20,4<<20,16<<20};
  size_t chunks[]={1,4};
  for(int ci=0;ci<2;ci++){ size_t c=chunks[ci];
    for(int si=0;si<7;si++){ size_t S=sizes[si]; if (S < c*4096) continue; uint64_t a[N], b[N];
      char*H=mmap(0,S,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0); madvise(H,S,MADV_HUGEPAGE); memset(H,1,S);
      for(int i=0;i<N;i++){ cp_x86_64_avx2(H,S/4096); a[i]=chunk(H,c); }
      pr("hot, avx2",S,c,a);
      for(int i=0;i<N;i++){ cp_x86_64_avx2_nt(H,S/4096); b[i]=chunk(H,c); }
      pr("hot, nt before",S,c,b);
      munmap(H,S);
    }
    uint64_t r[N];
    for(int i=0;i<N;i++){size_t off=((size_t)random()*4096)%(pool-(1<<20)); off&=~4095ul; r[i]=chunk(P+off,c);}
    pr("cold pool",pool,c,r);
  }
}
