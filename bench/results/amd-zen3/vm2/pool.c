/* SPDX-License-Identifier: MIT */
/* A page pool of cold blocks: each clear on a random block of a 2 GiB pool (blocks
 * come back at random), one contender for a whole phase of 4 GiB of clears, so
 * nothing else evicts the estimate's chunks between visits: avx2_nt,
 * cp_clear_pages_cold, cp_clear_pages. GB/s, medians of 9 alternating phases.
 * ./pool KIB. Build:
 * gcc -O2 -Iinclude -o pool pool.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){ size_t sz=(argc>1?strtoul(argv[1],0,0):1024)<<10, np=sz/4096;
  size_t pool=(size_t)2<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(P,pool,MADV_HUGEPAGE);
  for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  const struct cp_kernel*NT=cp_kernel_find("avx2_nt");
  size_t calls=(size_t)(4ul<<30)/sz; if(calls<64)calls=64; double g[3][9];
  for(int r=0;r<9;r++) for(int c=0;c<3;c++){ double a=now();
      for(size_t i=0;i<calls;i++){ char*p=P+(rnd()%(pool/sz))*sz; if(c==0)NT->clear(p,np); else if(c==1) cp_clear_pages_cold(p,np); else cp_clear_pages(p,np);}
      g[c][r]=calls*sz/(now()-a)/1e9; }
  for(int c=0;c<3;c++) qsort(g[c],9,8,cmpd);
  printf("%5zuK pool of cold blocks: avx2_nt %.1f GB/s, cp_clear_pages_cold %.1f (%.2f), cp_clear_pages %.1f (%.2f)\n",sz>>10,g[0][4],g[1][4],g[1][4]/g[0][4],g[2][4],g[2][4]/g[0][4]);
}
