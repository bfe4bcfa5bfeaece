/* SPDX-License-Identifier: MIT */
/* The dispatch's paths on one hot buffer against the avx2 kernel called directly:
 * cp_clear_pages, cp_clear_pages_hot (a band lookup, no history), and one or two
 * empty noinline wrappers around the direct call (what a call level alone costs).
 * 101 rounds, each timing every variant (order rotating), 4 MiB of clears a sample;
 * per-round ratio direct/variant, median (quartiles). ./dispatch_paths PAGES. Build:
 * gcc -O2 -Iinclude -o dispatch_paths dispatch_paths.c build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "clearpages.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
static const struct cp_kernel *k;
__attribute__((noinline)) static void wrap(void *p, size_t n){ k->clear(p,n); __asm__ volatile("":::"memory"); }
__attribute__((noinline)) static void wrap2(void *p, size_t n){ wrap(p,n); __asm__ volatile("":::"memory"); }
int main(int argc,char**argv){
  size_t pages=argc>1?strtoul(argv[1],0,0):4, R=101, reps=(4<<20)/(pages*4096);
  char*buf=mmap(0,64<<20,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(buf,64<<20,MADV_HUGEPAGE);
  buf=(char*)(((unsigned long)buf+(2<<20)-1)&~((2ul<<20)-1));
  k=cp_kernel_find("avx2"); cp_clear_pages(buf,pages);
  enum{V=5}; const char*name[V]={"direct","cp_clear_pages","cp_clear_pages_hot","wrap1","wrap2"};
  static double t[V][101], ratio[V][101];
  for(size_t r=0;r<R;r++){
    for(int w=0;w<2;w++) for(int vv=0;vv<V;vv++){ int v=(vv+r)%V; double t0=now();
      for(size_t i=0;i<reps;i++){ switch(v){case 0:k->clear(buf,pages);break;case 1:cp_clear_pages(buf,pages);break;case 2:cp_clear_pages_hot(buf,pages);break;case 3:wrap(buf,pages);break;case 4:wrap2(buf,pages);break;} }
      if(w) t[v][r]=now()-t0; }
    for(int v=0;v<V;v++) ratio[v][r]=t[0][r]/t[v][r];
  }
  for(int v=1;v<V;v++){ qsort(ratio[v],R,8,cmpd); printf("%zu pages: %s/direct %.3f (%.3f-%.3f)\n",pages,name[v],ratio[v][R/2],ratio[v][R/4],ratio[v][3*R/4]); }
}
