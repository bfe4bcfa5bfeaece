/* SPDX-License-Identifier: MIT */
/* What timing a chunk costs a clear of memory not cached: random slots of a 2 GiB
 * pool (written twice, THP), each variant against avx2_nt alone, paired by round
 * (median of 31 rounds of 8 clears). A chunk of 4 or 16 KiB cleared by avx2 between
 * counter.h's reads, the rest by avx2_nt; then the chunk cleared again by avx2_nt
 * right after it, or at the end, or flushed (clflushopt) at the end; and
 * cp_clear_pages_cold itself. ./cold1m KIB. Build:
 * gcc -O2 -Iinclude -o cold1m cold1m.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static inline uint64_t tsf(void){unsigned lo,hi;__asm__ volatile("mfence; lfence; rdtsc":"=a"(lo),"=d"(hi)::"memory");return ((uint64_t)hi<<32)|lo;}
static inline uint64_t tsl(void){unsigned lo,hi;__asm__ volatile("lfence; rdtsc":"=a"(lo),"=d"(hi)::"memory");return ((uint64_t)hi<<32)|lo;}
static const struct cp_kernel*A,*N;
volatile uint64_t sinkt;
/* the chunk (pages) timed as counter.h times it, then the rest by avx2_nt; and the
 * chunk cleared again by avx2_nt: 0 never, 1 right after it, 2 at the end, 3 clflushopt at the end */
static inline void timed(char*p,size_t n,size_t ch,int again){uint64_t a=tsf(); A->clear(p,ch); uint64_t b=tsl(); sinkt=b-a;
  if(again==1) N->clear(p,ch);
  N->clear(p+ch*4096,n-ch);
  if(again==2) N->clear(p,ch);
  if(again==3) for(size_t i=0;i<ch*64;i++) __asm__ volatile("clflushopt (%0)"::"r"(p+64*i):"memory");}
static void nt(char*p,size_t n){N->clear(p,n);}
static void cold(char*p,size_t n){cp_clear_pages_cold(p,n);}
static void t4(char*p,size_t n){timed(p,n,1,0);}
static void t16(char*p,size_t n){timed(p,n,4,0);}
static void t4r(char*p,size_t n){timed(p,n,1,1);}
static void t16r(char*p,size_t n){timed(p,n,4,1);}
static void t4e(char*p,size_t n){timed(p,n,1,2);}
static void t16e(char*p,size_t n){timed(p,n,4,2);}
static void t16f(char*p,size_t n){timed(p,n,4,3);}
struct{const char*n;void(*f)(char*,size_t);}K[]={{"avx2_nt",nt},{"timed4K",t4},{"timed16K",t16},{"4K+again",t4r},{"16K+again",t16r},
  {"4K+end",t4e},{"16K+end",t16e},{"16K+flush",t16f},{"cold_call",cold}};
#define NK 9
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
int main(int argc,char**argv){A=cp_kernel_find("avx2");N=cp_kernel_find("avx2_nt");
  size_t sz=(argc>1?strtoul(argv[1],0,0):1024)<<10, np=sz/4096;
  size_t pool=(size_t)2<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(P,pool,MADV_HUGEPAGE);
  for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  int R=31; size_t reps=8; double t[NK][64];
  for(int r=0;r<R;r++){int ord[NK];for(int i=0;i<NK;i++)ord[i]=i;for(int i=NK-1;i>0;i--){int j=rnd()%(i+1);int x=ord[i];ord[i]=ord[j];ord[j]=x;}
    for(int o=0;o<NK;o++){int k=ord[o]; for(size_t i=0;i<2*reps;i++)K[k].f(P+(rnd()%(pool/sz))*sz,np);
      double a=now(); for(size_t i=0;i<reps;i++)K[k].f(P+(rnd()%(pool/sz))*sz,np); t[k][r]=now()-a;}}
  printf("%zuK cold, vs avx2_nt paired:",sz>>10);
  for(int k=1;k<NK;k++){double rat[64]; for(int r=0;r<R;r++)rat[r]=t[0][r]/t[k][r]; qsort(rat,R,8,cmpd); printf(" %s %.3f",K[k].n,rat[R/2]);}
  qsort(t[0],R,8,cmpd); printf(" (avx2_nt %.1f GB/s)\n", sz*reps/t[0][R/2]/1e9);
}
