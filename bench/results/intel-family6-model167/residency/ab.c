/* SPDX-License-Identifier: MIT */
/* Throwaway measurement program: see README.md in this folder. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <immintrin.h>
#include <x86intrin.h>
static inline uint64_t tsc(void){ return __rdtsc(); }
static inline uint64_t tscp(void){ unsigned a; return __rdtscp(&a); }
static int cmp(const void*a,const void*b){uint64_t x=*(uint64_t*)a,y=*(uint64_t*)b;return x<y?-1:x>y;}
#define N 601
static void ntclear(char*p,size_t n){__m512i z=_mm512_setzero_si512(); for(size_t i=0;i<n;i+=64)_mm512_stream_si512((void*)(p+i),z); _mm_sfence();}
static void tclear(char*p,size_t n){asm volatile("rep stosb":"+D"(p),"+c"(n):"a"(0):"memory");}
static uint64_t tt(char*p,size_t n){uint64_t t0=tsc();tclear(p,n);return tscp()-t0;}
static uint64_t tn(char*p,size_t n){uint64_t t0=tsc();ntclear(p,n);return tscp()-t0;}
int main(int argc,char**argv){
  size_t pool=4ul<<30; char*P=mmap(0,pool+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  P=(char*)(((uintptr_t)P+(2<<20)-1)&~((uintptr_t)(2<<20)-1));
  madvise(P,pool,MADV_HUGEPAGE);
  for(int r=0;r<3;r++) memset(P,r+1,pool);
  size_t sizes[]={1<<20,4<<20,16<<20,32<<20};
  size_t chunks[]={4096,16384,65536};
  for(int si=0;si<4;si++){ size_t S=sizes[si];
    char*H=mmap(0,S,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0); madvise(H,S,MADV_HUGEPAGE); memset(H,1,S);
    for(int ci=0;ci<3;ci++){ size_t c=chunks[ci]; uint64_t a[N],b[N],r1[N],r2[N]; int wrongh=0,wrongc=0,absh=0,absc=0;
      for(int i=0;i<N;i++){tclear(H,S); a[i]=tt(H,c); b[i]=tn(H+c,c); tclear(H+2*c,S-2*c); wrongh+= a[i]>=b[i]; absh+= a[i]*16384/c > 2740; }
      for(int i=0;i<N;i++){size_t off=((size_t)rand()*4096)%(pool-S); off&=~4095ul; r1[i]=tt(P+off,c); r2[i]=tn(P+off+c,c); wrongc+= r1[i]<=r2[i]; absc+= r1[i]*16384/c <= 2740;}
      qsort(a,N,8,cmp);qsort(b,N,8,cmp);qsort(r1,N,8,cmp);qsort(r2,N,8,cmp);
      printf("S=%5zuK c=%3zuK hot: T %6lu NT %6lu wrong %3d/%d | cold: T %6lu NT %6lu wrong %3d abs %d | abs %d\n",S>>10,c>>10,a[N/2],b[N/2],wrongh,N,r1[N/2],r2[N/2],wrongc,absh,absc);
    }
    munmap(H,S);
  }
}
