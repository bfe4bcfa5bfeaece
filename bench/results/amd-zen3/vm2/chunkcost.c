/* SPDX-License-Identifier: MIT */
/* What timing the first chunk costs a hot buffer: one buffer cleared again and again
 * by avx2 directly, against the same with its first 4 KiB or 16 KiB timed between two
 * TSC reads (mfence; lfence; rdtsc as counter.h, or lfence; rdtsc alone) and the rest
 * by avx2 or sse2 on the verdict. Prints direct's time over each variant's (paired by
 * round, median of 31). Build:
 * gcc -O2 -Iinclude -o chunkcost chunkcost.c build/x86_64/libclearpages.a -lpthread */
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
static const struct cp_kernel*A,*S;
volatile uint64_t sinkt;
static void direct(char*p,size_t n){A->clear(p,n);}
#define V(NAME,START,CH) static void NAME(char*p,size_t n){uint64_t a=START(); A->clear(p,CH); uint64_t b=tsl(); sinkt=b-a; (b-a<2000?A:S)->clear(p+CH*4096,n-CH);}
V(f4,tsf,1) V(l4,tsl,1) V(f16,tsf,4) V(l16,tsl,4)
struct{const char*n;void(*f)(char*,size_t);}K[]={{"direct",direct},{"mfence4K",f4},{"lfence4K",l4},{"mfence16K",f16},{"lfence16K",l16}};
#define NK 5
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
int main(void){A=cp_kernel_find("avx2");S=cp_kernel_find("sse2");
  char*H=mmap(0,4<<20,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(H,4<<20,MADV_HUGEPAGE); memset(H,1,4<<20);
  size_t sizes[]={32<<10,64<<10,128<<10,256<<10,512<<10}; int R=31;
  for(int si=0;si<5;si++){size_t sz=sizes[si],np=sz/4096,reps=(8<<20)/sz; double t[NK][64];
    for(int r=0;r<R;r++){int ord[NK];for(int i=0;i<NK;i++)ord[i]=i;for(int i=NK-1;i>0;i--){int j=rnd()%(i+1);int x=ord[i];ord[i]=ord[j];ord[j]=x;}
      for(int o=0;o<NK;o++){int k=ord[o]; for(size_t i=0;i<reps;i++)K[k].f(H,np); double a=now(); for(size_t i=0;i<reps;i++)K[k].f(H,np); t[k][r]=now()-a;}}
    double rat[NK][64];
    for(int k=0;k<NK;k++) for(int r=0;r<R;r++) rat[k][r]=t[0][r]/t[k][r];
    printf("%4zuK:",sz>>10); for(int k=1;k<NK;k++){qsort(rat[k],R,8,cmpd); printf(" %s %.3f",K[k].n,rat[k][R/2]);} printf("\n"); fflush(stdout);}
}
