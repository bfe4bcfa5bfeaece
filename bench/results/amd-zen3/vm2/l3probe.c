/* SPDX-License-Identifier: MIT */
/* Does a probe predict the faster kernel at 16-32 MiB? States: the buffer cleared
 * temporally 3x (held), the same then EVICT MiB of other memory read (partly held),
 * a random slot of a 2 GiB pool (cold). Per trial: probe ticks (8 loads in the first
 * 4 MiB), then one clear of the whole extent by avx2 or avx2_nt (alternating), GB/s.
 * ./l3probe EXTENT_MIB EVICT_MIB. Build:
 * gcc -O2 -Iinclude -o l3probe l3probe.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static inline uint64_t t0(void){unsigned lo,hi;__asm__ volatile("mfence; lfence; rdtsc":"=a"(lo),"=d"(hi)::"memory");return ((uint64_t)hi<<32)|lo;}
static inline uint64_t t1(void){unsigned lo,hi;__asm__ volatile("lfence; rdtsc":"=a"(lo),"=d"(hi)::"memory");return ((uint64_t)hi<<32)|lo;}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
#define N 60
int main(int argc,char**argv){
  size_t ext=(argc>1?strtoul(argv[1],0,0):16)<<20, evict=(argc>2?strtoul(argv[2],0,0):16)<<20;
  const struct cp_kernel*K[2]={cp_kernel_find("avx2"),cp_kernel_find("avx2_nt")};
  size_t pool=(size_t)2<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(P,pool,MADV_HUGEPAGE);
  for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  char*H=mmap(0,ext,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(H,ext,MADV_HUGEPAGE); memset(H,1,ext);
  char*E=mmap(0,evict,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(E,evict,MADV_HUGEPAGE); memset(E,1,evict);
  const char*nm[3]={"held","partly","cold"};
  for(int st=0;st<3;st++){ double gb[2][N]; double pt[2][N]; int n[2]={0,0};
    for(int i=0;i<2*N;i++){ int k=i&1; char*p=H;
      if(st<2){ for(int w=0;w<3;w++) K[0]->clear(H,ext>>12); if(st==1){ volatile long s=0; for(size_t o=0;o<evict;o+=64) s+=*(long*)(E+o);} }
      else p=P+(rnd()%(pool/ext))*ext;
      volatile char sink; char s=0; uint64_t a=t0(); for(int j=0;j<8;j++) s+=p[(size_t)j*(512<<10)+64*(rnd()%((512<<10)/64))]; uint64_t b=t1(); sink=s;(void)sink;
      double x=now(); K[k]->clear(p,ext>>12); double y=now();
      gb[k][n[k]]=ext/(y-x)/1e9; pt[k][n[k]]=(double)(b-a); n[k]++; }
    for(int k=0;k<2;k++){qsort(gb[k],N,8,cmpd);qsort(pt[k],N,8,cmpd);}
    printf("%zuM evict %zuM %-6s avx2 p50 %5.1f GB/s (p10 %5.1f p90 %5.1f) avx2_nt p50 %5.1f | probe ticks p10 %5.0f p50 %5.0f p90 %5.0f\n",ext>>20,evict>>20,nm[st],
      gb[0][N/2],gb[0][N/10],gb[0][9*N/10],gb[1][N/2],pt[0][N/10],pt[0][N/2],pt[0][9*N/10]); fflush(stdout);}
}
