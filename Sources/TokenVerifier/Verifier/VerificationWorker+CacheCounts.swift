extension VerificationWorker {
    /// The signature-cache lookups this worker made since the last call, and starts counting
    /// again: `hits` answered check 12 from the cache, `misses` had their signature verified.
    /// A token with a cache key counts once (a copy met again in the same batch is looked up
    /// when its own check 12 runs). Both are 0 when the cache is off.
    package func takeSignatureCacheCounts() -> (hits: Int, misses: Int) {
        defer {
            signatureCacheHits = 0
            signatureCacheMisses = 0
        }
        return (signatureCacheHits, signatureCacheMisses)
    }
}
