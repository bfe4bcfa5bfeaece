/* SPDX-License-Identifier: MIT */
/* The cold history's one cost: a thread whose cp_clear_pages_cold targets turn
 * from cold to hot. Phase one: 1000 cold calls on random slots of a 1 GiB pool
 * (verdicts uncached, timing spaced out to 256 calls); phase two: 400 calls on
 * one hot buffer, each timed. Reports the calls until the first temporal-speed
 * call, and the time lost over those 400 calls against the same calls made
 * when the history was already cached (steady state), per extent. Build:
 * gcc -O2 -Iinclude -o switch switch.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
#define HOT 400
int main(void){
  size_t pool=(size_t)1<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  madvise(P,pool,MADV_HUGEPAGE); for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  char*H=mmap(0,1<<20,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); memset(H,1,1<<20);
  size_t sizes[]={4096,16384,65536,262144}; int T=15;
  for(int si=0;si<4;si++){ size_t sz=sizes[si], np=sz/4096; double first[32], lost[32], steady_call=0;
    for(int t=0;t<T;t++){
      /* steady: a cached history, then HOT timed hot calls */
      for(int i=0;i<600;i++) cp_clear_pages_cold(H,np);
      double s0=now(); for(int i=0;i<HOT;i++) cp_clear_pages_cold(H,np); double steady=now()-s0;
      size_t skip=rnd()%256;   /* any phase of the history's interval */
      for(size_t i=0;i<1000+skip;i++) cp_clear_pages_cold(P+(rnd()%(pool/sz))*sz,np);
      double c[HOT]; double tot=0;
      for(int i=0;i<HOT;i++){ double a=now(); cp_clear_pages_cold(H,np); c[i]=now()-a; tot+=c[i]; }
      double fast=steady/HOT; int f=HOT;
      for(int i=0;i<HOT;i++) if(c[i]<1.5*fast){ int ok=1; for(int j=i;j<i+8&&j<HOT;j++) if(c[j]>1.5*fast) ok=0; if(ok){f=i;break;} }
      first[t]=f; lost[t]=(tot-steady)*1e6; steady_call+=fast; }
    qsort(first,T,8,cmpd); qsort(lost,T,8,cmpd);
    printf("%4zuK: calls until temporal speed: median %.0f (min %.0f, max %.0f); time lost over %d hot calls: median %.0f us (max %.0f), steady call %.2f us\n",
      sz>>10, first[T/2], first[0], first[T-1], HOT, lost[T/2], lost[T-1], steady_call/T*1e6);
    fflush(stdout);}
}
