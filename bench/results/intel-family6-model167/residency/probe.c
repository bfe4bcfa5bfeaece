/* SPDX-License-Identifier: MIT */
/* Throwaway measurement program: see README.md in this folder. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>
static inline uint64_t tsc(void){ return __rdtsc(); }
static inline uint64_t tscp(void){ unsigned a; return __rdtscp(&a); }
static int cmp(const void*a,const void*b){uint64_t x=*(uint64_t*)a,y=*(uint64_t*)b;return x<y?-1:x>y;}
#define N 2001
static uint64_t med(uint64_t*v,int n){qsort(v,n,8,cmp);return v[n/2];}
static uint64_t p90(uint64_t*v,int n){return v[n*9/10];}
/* probe: k loads spread across [p,p+len) */
static inline uint64_t probe(const char*p,size_t len,int k){
  uint64_t t0=tsc(); uint64_t s=0;
  for(int i=0;i<k;i++) s+= *(volatile const uint64_t*)(p + (len/k)*i + ((i*4096/ k)&~63));
  uint64_t t1=tscp(); asm volatile(""::"r"(s)); return t1-t0;
}
static inline uint64_t chunk(char*p,size_t n){
  uint64_t t0=tsc(); asm volatile("rep stosb":"+D"(p),"+c"(n):"a"(0):"memory"); uint64_t t1=tscp(); return t1-t0;}
int main(int argc,char**argv){
  size_t pool=4ul<<30; char*P=mmap(0,pool,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0);
  madvise(P,pool,MADV_HUGEPAGE);
  for(int r=0;r<2;r++) memset(P,r+1,pool);
  uint64_t v[N];
  /* overhead */
  for(int i=0;i<N;i++){uint64_t t0=tsc(),t1=tscp();v[i]=t1-t0;} printf("rdtsc..rdtscp empty: med %lu\n",med(v,N));
  size_t sizes[]={4096,16384,65536,1<<20,4<<20,16<<20,32<<20,64<<20};
  for(int si=0;si<8;si++){ size_t S=sizes[si];
    char*H=aligned_alloc(4096,S); memset(H,1,S);
    for(int k=1;k<=8;k*=8){
      for(int i=0;i<N;i++){memset(H,0,S); v[i]=probe(H,S,k);} uint64_t hm=med(v,N),h9=p90(v,N);
      for(int i=0;i<N;i++){size_t off=((size_t)rand()*4096)%(pool-S); off&=~4095ul; v[i]=probe(P+off,S,k);} uint64_t cm=med(v,N),c9=p90(v,N);
      printf("S=%8zuK probe k=%d: hot med %5lu p90 %5lu  cold med %5lu p90 %5lu\n",S>>10,k,hm,h9,cm,c9);
    }
    size_t c= S<65536?S:65536;
    for(int i=0;i<N/4;i++){memset(H,0,S); v[i]=chunk(H,c);} uint64_t hm=med(v,N/4);
    for(int i=0;i<N/4;i++){size_t off=((size_t)rand()*4096)%(pool-S); off&=~4095ul; v[i]=chunk(P+off,c);} uint64_t cm=med(v,N/4);
    printf("S=%8zuK chunk %zuK: hot %lu cold %lu\n",S>>10,c>>10,hm,cm);
    free(H);
  }
}
