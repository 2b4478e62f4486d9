#if canImport(Glibc)
import Glibc
#endif

/// Makes glibc allocate every block of 1 MiB or more with `mmap`, so it goes back to the system when freed.
///
/// A big track's per-fix arrays are tens of megabytes each (1,000,000 fixes: the file's bytes, the fixes, projected
/// positions, the matcher's buffers). glibc raises its mmap threshold to the size of the first such block freed (up
/// to 32 MiB), after which blocks below it come from the heap and stay resident after use: on a 1,000,000-fix track
/// that was about 35 bytes per fix of peak RSS (`match`, measured with `scripts/big-track-rss.sh`; issue 16, item
/// 11). A fixed threshold turns the dynamic one off. Only the commands that read whole tracks call this.
func returnBigAllocationsToTheSystem() {
    #if canImport(Glibc)
    // mallopt is glibc's (malloc.h, not in the Glibc module): looked up, so other C libraries simply skip this.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    guard let symbol = dlsym(nil, "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 1 << 20)
    #endif
}
