internal import CZlib

/// ZLIB streams (RFC 1950: a two-byte header, DEFLATE, an Adler-32 trailer) inflated through the
/// system's zlib: the `lst` of a Token Status List. (The issuer's deflate is TokenTools'.)
enum Zlib {
    /// Why a stream could not be inflated.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes `stream` inflates to, refusing more than `limit` of them (a bomb fails without
    /// taking memory beyond the limit), a broken or truncated stream, a wrong checksum and bytes
    /// after the stream's end.
    static func inflate(_ stream: UnsafeBufferPointer<UInt8>, limit: Int) throws(Failure) -> [UInt8] {
        var z = z_stream()
        guard tv_inflate_init(&z) == Z_OK else { throw Failure(description: "zlib could not start inflating") }
        defer { inflateEnd(&z) }
        var output: [UInt8] = []
        // Room grows by doubling from a guess; one byte past the limit tells a stream that is too large.
        var capacity = min(limit + 1, max(1 << 16, stream.count.multipliedReportingOverflow(by: 4).partialValue))
        var produced = 0
        z.next_in = UnsafeMutablePointer(mutating: stream.baseAddress)
        var remainingInput = stream.count
        var result: Int32 = Z_OK
        while true {
            if produced == output.count {
                if output.count > limit { break }
                output.reserveCapacity(capacity)
                output.append(contentsOf: repeatElement(0, count: capacity - output.count))
                capacity = min(limit + 1, capacity.multipliedReportingOverflow(by: 2).partialValue)
            }
            let chunkIn = UInt32(min(remainingInput, Int(UInt32.max)))
            z.avail_in = chunkIn
            let room = UInt32(min(output.count - produced, Int(UInt32.max)))
            output.withUnsafeMutableBufferPointer { buffer in
                z.next_out = buffer.baseAddress! + produced
                z.avail_out = room
                result = CZlib.inflate(&z, Z_NO_FLUSH)
            }
            produced += Int(room - z.avail_out)
            remainingInput -= Int(chunkIn - z.avail_in)
            switch result {
            case Z_STREAM_END:
                guard remainingInput == 0 else {
                    throw Failure(description: "\(remainingInput) bytes follow the end of the ZLIB stream")
                }
                guard produced <= limit else { break }
                output.removeSubrange(produced...)
                guard output.capacity > produced + produced / 16 else { return output }
                // Held for long: no more room than it needs.
                return [UInt8](unsafeUninitializedCapacity: produced) { target, initialized in
                    output.withUnsafeBufferPointer { _ = target.initialize(fromContentsOf: $0) }
                    initialized = produced
                }
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                if remainingInput == 0 && z.avail_out > 0 { throw Failure(description: "the ZLIB stream is truncated") }
                continue
            case Z_NEED_DICT:
                throw Failure(description: "the ZLIB stream asks for a preset dictionary")
            default:
                let message = z.msg.map { String(cString: $0) } ?? "error \(result)"
                throw Failure(description: "the ZLIB stream is broken: \(message)")
            }
            if produced > limit { break }
        }
        throw Failure(description: "the ZLIB stream inflates to more than \(limit) bytes")
    }
}
