/* SPDX-License-Identifier: MIT */
/* Measurement program (bench/results/amd-zen3/NOTES.md, 2026-12-02): C clears
 * of one block after each E MiB memset, cp_clear_pages against avx2, 60 samples
 * each, interleaved; prints their time ratio. Usage: evict2 PAGES C E.
 * Build: gcc -O2 -Iinclude evict2.c build/x86_64/libclearpages.a */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <x86intrin.h>
#include <clearpages.h>
void cp_x86_64_avx2(void *, size_t);
int main(int argc,char**argv){
  size_t pages = argc>1?strtoul(argv[1],0,0):1024; int C = argc>2?atoi(argv[2]):16; size_t ev=(argc>3?strtoul(argv[3],0,0):48)<<20; enum{S=60};
  char *b = aligned_alloc(4096, pages*4096); memset(b,1,pages*4096);
  char *o = aligned_alloc(4096, ev); memset(o,1,ev);
  double t[2]={0,0};
  for(int s=0;s<S;s++) for(int k0=0;k0<2;k0++){ int k=(k0+s)&1;
    memset(o,2,ev);
    uint64_t t0=__rdtsc();
    for(int c=0;c<C;c++){ if(k) cp_clear_pages(b,pages); else cp_x86_64_avx2(b,pages); }
    t[k]+=(double)(__rdtsc()-t0); }
  printf("pages %zu calls %d evict %zuM: cp_clear_pages/avx2 time %.3f\n",pages,C,ev>>20,t[1]/t[0]);
}
