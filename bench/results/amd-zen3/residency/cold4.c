/* SPDX-License-Identifier: MIT */
/* Measurement program (bench/results/amd-zen3/NOTES.md, 2026-12-02): random 4 MiB
 * slots of a 2 GiB pool written twice (not cached), 61 rounds of 8 clears, interleaved:
 * avx2_nt alone, a 16 KiB or 4 KiB avx2 chunk first, the fenced counter reads alone,
 * cp_clear_pages. Build: gcc -O2 -Iinclude cold4.c build/x86_64/libclearpages.a */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>
#include <sys/mman.h>
#include <clearpages.h>
void cp_x86_64_avx2_nt(void *, size_t);
void cp_x86_64_avx2(void *, size_t);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static volatile uint64_t sink;
static void v_nt(char*p,size_t n){cp_x86_64_avx2_nt(p,n);}
static void v_t16(char*p,size_t n){cp_x86_64_avx2(p,4);cp_x86_64_avx2_nt(p+16384,n-4);}
static void v_t4(char*p,size_t n){cp_x86_64_avx2(p,1);cp_x86_64_avx2_nt(p+4096,n-1);}
static void v_fence(char*p,size_t n){_mm_mfence();_mm_lfence();uint64_t t=__rdtsc();cp_x86_64_avx2_nt(p,4);_mm_lfence();sink=__rdtsc()-t;cp_x86_64_avx2_nt(p+16384,n-4);}
static void v_auto(char*p,size_t n){cp_clear_pages(p,n);}
int main(int argc,char**argv){
  size_t pages = argc>1?strtoul(argv[1],0,0):1024, pool=(size_t)2<<30;
  char *b = mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0);
  madvise(b,pool,MADV_HUGEPAGE);
  for(int w=0;w<2;w++) memset(b,1,pool);
  size_t slots=pool/(pages*4096); unsigned long long rng=88172645463325252ull;
  enum{R=61,K=5}; static double t[K][R]; const char*nm[K]={"avx2_nt","t16k+nt","t4k+nt","fence+nt","cp_clear_pages"};
  void (*f[K])(char*,size_t)={v_nt,v_t16,v_t4,v_fence,v_auto};
  for(int r=0;r<R;r++) for(int k0=0;k0<K;k0++){int k=(k0+r)%K;
    double acc=0; for(int i=0;i<8;i++){ rng^=rng<<13;rng^=rng>>7;rng^=rng<<17; char*p=b+(rng%slots)*pages*4096;
      double t0=now(); f[k](p,pages); acc+=now()-t0; }
    t[k][r]=acc/8; }
  for(int k=0;k<K;k++){qsort(t[k],R,8,cmp); printf("%-16s %zu pages cold: median %.1f us (%.1f GB/s), ratio to avx2_nt %.3f\n",nm[k],pages,t[k][R/2]*1e6,pages*4096/t[k][R/2]/1e9,t[0][R/2]/t[k][R/2]);}
}
