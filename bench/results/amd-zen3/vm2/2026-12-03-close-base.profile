version 3
arch x86_64
cpu AuthenticAMD 25 1
band 0 avx2
band 16M avx2_nt
uncached_band 0 avx2
uncached_band 16k sse2
uncached_band 4M avx2_nt
cached_min_mbps 16000
discard_from none
parallel 8M
end
