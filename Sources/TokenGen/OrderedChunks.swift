import TokenConcurrency
import TokenTools

/// Makes the chunks of a set on several threads and hands them over in order, with at most
/// `2 × threads` chunks made but not yet handed over: memory stays flat whatever the set's size.
/// Each thread has its own ``ChunkWorker`` (its own signers and scratch buffers); `chains` (the
/// certificates of a set with a chain share) are made once and shared.
enum OrderedChunks {
    /// Calls `consume` with each chunk of `spec`, in order, on the calling thread. `consume`
    /// returns false to stop early (then no more chunks are made); an error it throws stops the
    /// run and is rethrown. Returns whether every chunk was consumed.
    static func run<Failure: Error>(
        _ spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey), chains: GenChains? = nil, threads: Int,
        consume: (TokenChunk) throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        let (ed25519, es256) = keys
        return try OrderedProduction.run(
            count: spec.chunkCount, threads: threads, window: max(2, threads * 2),
            makeProducer: {
                let worker = ChunkWorker(spec: spec, keys: (ed25519, es256), chains: chains)
                return { worker.makeChunk($0) }
            }, consume: consume)
    }
}
