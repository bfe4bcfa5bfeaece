/* SPDX-License-Identifier: MIT */
/* Measurement program (bench/results/amd-zen3/NOTES.md, 2026-12-02): one 4 MiB
 * block cleared 16 times after each 48 MiB memset (what another process does to
 * the caches between an allocator's calloc-free loops), per call index, by avx2,
 * rep_stosb and cp_clear_pages. Build: gcc -O2 -Iinclude evict.c build/x86_64/libclearpages.a */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <x86intrin.h>
#include <clearpages.h>
void cp_x86_64_avx2(void *, size_t);
void cp_x86_64_rep_stosb(void *, size_t);
int main(int argc,char**argv){
  size_t pages = 1024; enum{S=40, C=16};
  char *b = aligned_alloc(4096, pages*4096); memset(b,1,pages*4096);
  size_t other = (size_t)48<<20; char *o = aligned_alloc(4096, other); memset(o,1,other);
  static double t[3][C];
  const char*nm[3]={"avx2","rep_stosb","cp_clear_pages"};
  for(int s=0;s<S;s++) for(int k=0;k<3;k++){
    memset(o,2,other);
    for(int c=0;c<C;c++){ uint64_t t0=__rdtsc();
      if(k==2) cp_clear_pages(b,pages); else if(k==1) cp_x86_64_rep_stosb(b,pages); else cp_x86_64_avx2(b,pages);
      t[k][c]+=(double)(__rdtsc()-t0)/S; }
  }
  for(int k=0;k<3;k++){ double sum=0; printf("%-15s",nm[k]); for(int c=0;c<C;c++){ printf(" %4.0f",t[k][c]/1000); sum+=t[k][c];} printf("  sum %.0fk\n",sum/1000);}
}
