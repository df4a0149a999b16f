internal import CZlib

/// DEFLATE through the system's zlib, for the status-list issuer: the `lst` of a Token Status
/// List. Verification only inflates (TokenVerifier's `Zlib.inflate`, within a limit).
package enum Deflate {
    /// `bytes` compressed into a ZLIB stream (RFC 1950) at the best compression.
    package static func zlib(_ bytes: [UInt8]) -> [UInt8] {
        var z = z_stream()
        guard tv_deflate_init(&z, Z_BEST_COMPRESSION) == Z_OK else { fatalError("zlib could not start deflating") }
        defer { deflateEnd(&z) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&z, UInt(bytes.count))))
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                z.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                z.avail_in = UInt32(input.count)
                z.next_out = out.baseAddress
                z.avail_out = UInt32(out.count)
                let result = CZlib.deflate(&z, Z_FINISH)
                precondition(result == Z_STREAM_END, "deflate into its own bound did not finish")
            }
        }
        output.removeSubrange(Int(z.total_out)...)
        return output
    }
}
