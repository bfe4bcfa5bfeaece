/* SPDX-License-Identifier: MIT */
/* switch.c for cp_clear_pages below 1 MiB (the small calls' history, Zen 3
 * built-in: sse2 on uncached memory from 16 KiB): 1000 calls on random slots
 * of a 1 GiB pool (verdicts uncached), a random 0-255 more, then 400 timed
 * calls on a ring of R hot buffers (R = 1: one buffer, the range cleared last,
 * never timed; R = 2: two alternating, each call a new range, so the thread's
 * verdict decides until its next timed call). Calls until the cached speed
 * returns and the time lost against a thread already judged cached, medians
 * of 15 trials. ./switch_any R. Build: gcc -O2 -Iinclude -o switch_any
 * switch_any.c build/x86_64/libclearpages.a -lpthread */
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
int main(int argc,char**argv){ int R=argc>1?atoi(argv[1]):2; if(R<1||R>2){fprintf(stderr,"switch_any: R is 1 or 2\n");return 2;}
  size_t pool=(size_t)1<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  madvise(P,pool,MADV_HUGEPAGE); for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  char*H=mmap(0,2<<20,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); memset(H,1,2<<20);
  size_t sizes[]={16384,65536,262144}; int T=15;
  for(int si=0;si<3;si++){ size_t sz=sizes[si], np=sz/4096; double first[32], lost[32], steady_call=0;
    for(int t=0;t<T;t++){
      for(int i=0;i<600;i++) cp_clear_pages(H+(i%R)*sz,np);     /* steady: cached verdict */
      double s0=now(); for(int i=0;i<HOT;i++) cp_clear_pages(H+(i%R)*sz,np); double steady=now()-s0;
      size_t skip=rnd()%256;
      for(size_t i=0;i<1000+skip;i++) cp_clear_pages(P+(rnd()%(pool/sz))*sz,np);
      double c[HOT]; double tot=0;
      for(int i=0;i<HOT;i++){ double a=now(); cp_clear_pages(H+(i%R)*sz,np); c[i]=now()-a; tot+=c[i]; }
      double fast=steady/HOT; int f=HOT;
      for(int i=0;i<HOT;i++) if(c[i]<1.3*fast){ int ok=1; for(int j=i;j<i+8&&j<HOT;j++) if(c[j]>1.3*fast) ok=0; if(ok){f=i;break;} }
      first[t]=f; lost[t]=(tot-steady)*1e6; steady_call+=fast; }
    qsort(first,T,8,cmpd); qsort(lost,T,8,cmpd);
    printf("R=%d %4zuK: calls until cached speed: median %.0f (min %.0f, max %.0f); time lost over %d hot calls: median %.0f us (max %.0f), steady call %.2f us\n",
      R, sz>>10, first[T/2], first[0], first[T-1], HOT, lost[T/2], lost[T-1], steady_call/T*1e6);
    fflush(stdout);}
}
