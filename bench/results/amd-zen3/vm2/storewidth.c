/* SPDX-License-Identifier: MIT */
/* Why sse2 beats avx2 on memory not cached (second Zen 3 VM): store order or store
 * width? Temporal loops, GB/s medians of R shuffled rounds, hot (one buffer), cold
 * (random slots of a 2 GiB THP pool written twice) and use (cold, then one store per
 * line). avx2/sse2/avx2_nt: the library's kernels. il2: avx2 stores alternating two
 * lines; il4: four lines; rev: a line's stores backwards; y64: 64 bytes an iteration;
 * vx128: VEX 16-byte stores; m1/m2/m3: a line in one 32-byte and two 16-byte stores
 * (three placements); nop: avx2 with four nops after each store. Build:
 * gcc -O2 -Iinclude -o storewidth storewidth.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef void (*fn)(char*,size_t);
static const struct cp_kernel *KA,*KS,*KN;
static void k_avx2(char*p,size_t n){KA->clear(p,n>>12);}
static void k_sse2(char*p,size_t n){KS->clear(p,n>>12);}
static void k_nt(char*p,size_t n){KN->clear(p,n>>12);}
#define Y(o) "vmovdqa %%ymm0," #o "(%0)\n\t"
#define X(o) "movdqa %%xmm0," #o "(%0)\n\t"
#define VX(o) "vmovdqa %%xmm0," #o "(%0)\n\t"
#define LOOP(NAME,STEP,BODY) static void NAME(char*p,size_t n){char*e=p+n; \
  __asm__ volatile("vpxor %%xmm0,%%xmm0,%%xmm0":::"xmm0"); \
  for(;p<e;p+=STEP) __asm__ volatile(BODY::"r"(p):"memory");\
  __asm__ volatile("vzeroupper"); }
LOOP(k_il2,128, Y(0) Y(64) Y(32) Y(96))
LOOP(k_m1,128, VX(0) VX(16) Y(32) VX(64) VX(80) Y(96))
LOOP(k_m2,128, Y(0) VX(32) VX(48) Y(64) VX(96) VX(112))
LOOP(k_m3,128, VX(0) "vmovdqu %%ymm0,16(%0)\n\t" VX(48) VX(64) "vmovdqu %%ymm0,80(%0)\n\t" VX(112))
LOOP(k_nop,128, Y(0) "nop\n\tnop\n\tnop\n\tnop\n\t" Y(32) "nop\n\tnop\n\tnop\n\tnop\n\t" Y(64) "nop\n\tnop\n\tnop\n\tnop\n\t" Y(96))
LOOP(k_il4,256, Y(0) Y(64) Y(128) Y(192) Y(32) Y(96) Y(160) Y(224))
LOOP(k_y256,256, Y(0) Y(32) Y(64) Y(96) Y(128) Y(160) Y(192) Y(224))
LOOP(k_y64,64, Y(0) Y(32))
LOOP(k_vx128,128, VX(0) VX(16) VX(32) VX(48) VX(64) VX(80) VX(96) VX(112))
LOOP(k_xil2,128, X(0) X(64) X(16) X(80) X(32) X(96) X(48) X(112))
LOOP(k_rev,128, Y(96) Y(64) Y(32) Y(0))
LOOP(k_hl,128, Y(32) Y(0) Y(96) Y(64))
struct {const char*n;fn f;} K[]={{"avx2",k_avx2},{"sse2",k_sse2},{"il2",k_il2},{"il4",k_il4},{"rev",k_rev},{"y64",k_y64},{"m1",k_m1},{"m2",k_m2},{"m3",k_m3},{"nop",k_nop},{"vx128",k_vx128},{"xil2",k_xil2},{"hl",k_hl},{"y256",k_y256},{"avx2_nt",k_nt}};
#define NK (sizeof K/sizeof K[0])
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){ KA=cp_kernel_find("avx2");KS=cp_kernel_find("sse2");KN=cp_kernel_find("avx2_nt");
  size_t pool=(size_t)2<<30; char*P=mmap(0,pool+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  P=(char*)(((uintptr_t)P+(2<<20)-1)&~(uintptr_t)((2<<20)-1)); madvise(P,pool,MADV_HUGEPAGE);
  for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  size_t sizes[]={4<<10,16<<10,64<<10,256<<10,1<<20,4<<20}; int NS=6; int R=argc>1?atoi(argv[1]):15;
  for(int kind=0;kind<3;kind++) for(int si=0;si<NS;si++){ size_t sz=sizes[si]; size_t reps=(8<<20)/sz; if(!reps)reps=1;
    double t[NK][64];
    for(int r=0;r<R;r++){ int ord[NK]; for(int i=0;i<NK;i++)ord[i]=i; for(int i=NK-1;i>0;i--){int j=rnd()%(i+1);int x=ord[i];ord[i]=ord[j];ord[j]=x;}
      for(int oi=0;oi<NK;oi++){int k=ord[oi]; char*hot=P;
        if(kind==0){for(int w=0;w<3;w++)K[k].f(hot,sz);}
        double t0=now();
        for(size_t i=0;i<reps;i++){ char*p= kind==0?hot: P+(rnd()%(pool/sz))*sz; K[k].f(p,sz); if(kind==2) for(size_t o=0;o<sz;o+=64) ((volatile long*)(p+o))[0]=1; }
        t[k][r]=(now()-t0)/reps; }}
    printf("%s %5zuK:", kind==0?"hot ":kind==1?"cold":"use ", sz>>10);
    for(int k=0;k<NK;k++){qsort(t[k],R,sizeof(double),cmpd); double g=sz/t[k][R/2]/1e9; printf(" %s=%.1f",K[k].n,g);} printf("\n"); fflush(stdout);}
}
