/* SPDX-License-Identifier: MIT */
/* Blocks of a 2 GiB pool not in the cache, 3000 visits at random: the first chunk
 * timed as cp__plan_run times it (1- or 4-page chunk, the library's threshold and
 * counter), then the rest by avx2_nt, as an uncached verdict clears it; how many
 * chunks say "cached", on first visits and overall. ./verdicts KIB PAGES. Build
 * (internal headers): gcc -O2 -Iinclude -Icommon -Iarch/x86_64 -o verdicts verdicts.c
 * build/x86_64/libclearpages.a -lpthread */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "clearpages.h"
#include "residency.h"
#include "state.h"
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
static int cmpu(const void*a,const void*b){uint64_t x=*(uint64_t*)a,y=*(uint64_t*)b;return (x>y)-(x<y);}
#define N 3000
int main(int argc,char**argv){ size_t sz=(argc>1?strtoul(argv[1],0,0):1024)<<10, np=sz/4096; size_t chunk=argc>2?strtoul(argv[2],0,0):1;
  size_t pool=(size_t)2<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(P,pool,MADV_HUGEPAGE);
  for(int pass=0;pass<2;pass++) memset(P,pass+1,pool);
  cp_clear_pages(P,1); usleep(5000); cp_clear_pages(P,1);
  struct cp__timing tm; cp__timing_for(cp__state()->policy.cached_min_mbps, cp__counter_hz(cp__state()), chunk, &tm);
  const struct cp_kernel*A=cp_kernel_find("avx2"),*NT=cp_kernel_find("avx2_nt");
  static uint64_t t[N]; int under=0, first=0, under_first=0; static unsigned char seen[1<<16];
  for(int i=0;i<N;i++){ size_t slot=rnd()%(pool/sz); char*p=P+slot*sz; t[i]=cp__timed_clear(A,p,tm.chunk_pages); under+=t[i]<=tm.limit_ticks; if(!seen[slot]){first++; under_first+=t[i]<=tm.limit_ticks; seen[slot]=1;} NT->clear(p+tm.chunk_pages*4096,np-tm.chunk_pages);}
  qsort(t,N,8,cmpu);
  printf("first visits %d, under the limit %d; ",first,under_first); printf("%zuK slots, %zu-page chunk, limit %llu: under the limit %d of %d; ticks p1 %llu p5 %llu p10 %llu p50 %llu p90 %llu\n",sz>>10,tm.chunk_pages,(unsigned long long)tm.limit_ticks,under,N,
    (unsigned long long)t[N/100],(unsigned long long)t[N/20],(unsigned long long)t[N/10],(unsigned long long)t[N/2],(unsigned long long)t[9*N/10]);
}
