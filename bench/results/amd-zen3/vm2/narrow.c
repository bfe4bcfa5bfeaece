/* SPDX-License-Identifier: MIT */
/* Temporal stores to memory not cached: the library's avx2, sse2 and movq kernels
 * against avx2/sse2 loops with prefetchw 1-4 KiB ahead, hot, cold (random slots of a
 * 2 GiB THP pool written twice) and use (cold, then one store per line). Build:
 * gcc -O2 -Iinclude -o narrow narrow.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <immintrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef void (*fn)(char*,size_t);
#include "clearpages.h"
static const struct cp_kernel *KA,*KS,*KN,*KQ;
static void k_avx2(char*p,size_t n){KA->clear(p,n>>12);}
static void k_sse2(char*p,size_t n){KS->clear(p,n>>12);}
static void k_movq(char*p,size_t n){KQ->clear(p,n>>12);}
static void k_nt(char*p,size_t n){KN->clear(p,n>>12);}
#define PFA(NAME,D,ST,W) static void NAME(char*p,size_t n){char*e=p+n; char*lim=e-D; \
  for(char*q=p;q<p+D&&q<e;q+=64) __asm__ volatile("prefetchw (%0)"::"r"(q)); \
  __asm__ volatile("vpxor %%xmm0,%%xmm0,%%xmm0":::"xmm0"); \
  for(;p<e;p+=128){ if(p<lim) __asm__ volatile("prefetchw %c1(%0)\n\tprefetchw %c1+64(%0)"::"r"(p),"i"(D)); \
   if(W==32) __asm__ volatile("vmovdqa %%ymm0,(%0)\n\tvmovdqa %%ymm0,32(%0)\n\tvmovdqa %%ymm0,64(%0)\n\tvmovdqa %%ymm0,96(%0)"::"r"(p):"memory"); \
   else __asm__ volatile("movdqa %%xmm0,(%0)\n\tmovdqa %%xmm0,16(%0)\n\tmovdqa %%xmm0,32(%0)\n\tmovdqa %%xmm0,48(%0)\n\tmovdqa %%xmm0,64(%0)\n\tmovdqa %%xmm0,80(%0)\n\tmovdqa %%xmm0,96(%0)\n\tmovdqa %%xmm0,112(%0)"::"r"(p):"memory"); } \
  __asm__ volatile("vzeroupper"); }
PFA(k_avx2_pf1k,1024,0,32) PFA(k_avx2_pf2k,2048,0,32) PFA(k_avx2_pf4k,4096,0,32) PFA(k_sse2_pf1k,1024,0,16) PFA(k_sse2_pf2k,2048,0,16)
struct {const char*n;fn f;} K[]={{"avx2",k_avx2},{"sse2",k_sse2},{"movq",k_movq},{"avx2_pf1k",k_avx2_pf1k},{"avx2_pf2k",k_avx2_pf2k},{"avx2_pf4k",k_avx2_pf4k},{"sse2_pf1k",k_sse2_pf1k},{"sse2_pf2k",k_sse2_pf2k},{"avx2_nt",k_nt}};
#define NK (sizeof K/sizeof K[0])
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){ KA=cp_kernel_find("avx2");KS=cp_kernel_find("sse2");KN=cp_kernel_find("avx2_nt");KQ=cp_kernel_find("movq");
  size_t pool=(size_t)2<<30; char*P=mmap(0,pool+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  P=(char*)(((uintptr_t)P+(2<<20)-1)&~(uintptr_t)((2<<20)-1)); madvise(P,pool,MADV_HUGEPAGE);
  for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  size_t sizes[]={16<<10,64<<10,256<<10,1<<20,4<<20}; int R=21;
  for(int kind=0;kind<3;kind++) for(size_t si=0;si<5;si++){ size_t sz=sizes[si]; size_t reps=(8<<20)/sz; if(!reps)reps=1;
    double t[NK][64];
    for(int r=0;r<R;r++){ int ord[NK]; for(int i=0;i<NK;i++)ord[i]=i; for(int i=NK-1;i>0;i--){int j=rnd()%(i+1);int x=ord[i];ord[i]=ord[j];ord[j]=x;}
      for(int oi=0;oi<NK;oi++){int k=ord[oi]; char*hot=P;
        if(kind==0){for(int w=0;w<3;w++)K[k].f(hot,sz);} 
        double t0=now();
        for(size_t i=0;i<reps;i++){ char*p= kind==0?hot: P+(rnd()%(pool/sz))*sz; K[k].f(p,sz); if(kind==2) for(size_t o=0;o<sz;o+=64) ((volatile long*)(p+o))[0]=1; }
        t[k][r]=(now()-t0)/reps; }}
    double base=0; printf("%s %5zuK:", kind==0?"hot ":kind==1?"cold":"use ", sz>>10);
    for(int k=0;k<NK;k++){qsort(t[k],R,sizeof(double),cmpd); double g=sz/t[k][R/2]/1e9; printf(" %s=%.1f",K[k].n,g);} printf("\n"); fflush(stdout);}
}
