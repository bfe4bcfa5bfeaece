/* SPDX-License-Identifier: MIT */
/* cp_clear_pages against the avx2 kernel it runs, called directly, on one hot buffer:
 * 101 rounds, each timing both (order alternating), 4 MiB of clears a sample. Build:
 * gcc -O2 -Iinclude -o dispatch64 dispatch64.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){
  size_t pages=argc>1?strtoul(argv[1],0,0):16, R=101, reps=(4<<20)/(pages*4096);
  char*buf=mmap(0,64<<20,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(buf,64<<20,MADV_HUGEPAGE);
  buf=(char*)(((unsigned long)buf+(2<<20)-1)&~((2ul<<20)-1));
  const struct cp_kernel*k=cp_kernel_find("avx2"); cp_clear_pages(buf,pages);
  double ta[101],tb[101],ratio[101];
  for(size_t r=0;r<R;r++){
    for(int w=0;w<2;w++){ for(int v=0;v<2;v++){ double t0=now(); for(size_t i=0;i<reps;i++){ if(v^(r&1)) cp_clear_pages(buf,pages); else k->clear(buf,pages);} double t=now()-t0; if(w){ if(v^(r&1)) tb[r]=t; else ta[r]=t;}}}
    ratio[r]=ta[r]/tb[r];
  }
  qsort(ta,R,8,cmpd);qsort(tb,R,8,cmpd);qsort(ratio,R,8,cmpd);
  printf("%zu pages: avx2 %.1f GB/s, cp_clear_pages %.1f GB/s, paired cp/avx2 %.3f (%.3f-%.3f)\n",pages,reps*pages*4096/ta[R/2]/1e9,reps*pages*4096/tb[R/2]/1e9,ratio[R/2],ratio[R/4],ratio[3*R/4]);
}
