#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The last JWS header segment read and what reading it gave, so that a stream of tokens that
/// share their header segment byte for byte (most streams: one issuer, one key) decodes and
/// reads it once. A header is a function of its segment's bytes alone, so the token parsed with
/// a memo is the token parsed without one.
///
/// Kept only for a header of at most ``capacity`` characters whose strings hold no escapes (its
/// texts then lie in its own decoded bytes, at offsets that move with it). Used by one thread at
/// a time (one per ``VerificationWorker``); its bytes live in one allocation of its own.
final class JWSHeaderMemo {
    /// The longest header segment kept, in base64url characters.
    static let capacity = 192

    /// The segment's characters, then its decoded bytes.
    private let bytes: UnsafeMutablePointer<UInt8>
    /// Characters in the kept segment; 0 when none is kept.
    private var segmentCount = 0
    private var decodedCount = 0
    /// The header's fields, their texts' offsets counted from the header's first byte.
    private var fields = ParsedToken.HeaderFields()
    private var supportedAlgorithm: SignatureAlgorithm?

    init() {
        bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.capacity + Base64URL.decodedCount(Self.capacity)!)
    }

    deinit {
        bytes.deallocate()
    }

    /// When `segment` is the kept one: copies its decoded bytes to `header` and returns its
    /// fields, their texts placed at `headerStart`.
    @inline(__always)
    func recall(
        _ segment: UnsafeBufferPointer<UInt8>, into header: UnsafeMutablePointer<UInt8>, headerStart: Int
    ) -> (ParsedToken.HeaderFields, SignatureAlgorithm?)? {
        guard segment.count == segmentCount, segmentCount > 0, memcmp(segment.baseAddress!, bytes, segmentCount) == 0
        else {
            return nil
        }
        header.update(from: bytes + segmentCount, count: decodedCount)
        return (fields.moved(by: headerStart), supportedAlgorithm)
    }

    /// Keeps `segment`, whose `decoded` bytes were read (at `headerStart` of the scratch) into
    /// `fields`, none of whose texts was unescaped.
    func keep(
        _ segment: UnsafeBufferPointer<UInt8>, decoded: UnsafeBufferPointer<UInt8>, headerStart: Int,
        fields: ParsedToken.HeaderFields, supportedAlgorithm: SignatureAlgorithm?
    ) {
        guard segment.count <= Self.capacity, segment.count > 0 else { return }
        bytes.update(from: segment.baseAddress!, count: segment.count)
        if decoded.count > 0 { (bytes + segment.count).update(from: decoded.baseAddress!, count: decoded.count) }
        segmentCount = segment.count
        decodedCount = decoded.count
        self.fields = fields.moved(by: -headerStart)
        self.supportedAlgorithm = supportedAlgorithm
    }
}

extension ParsedToken.HeaderFields {
    /// The same fields, every text `distance` bytes further.
    @inline(__always)
    func moved(by distance: Int) -> Self {
        func move(_ text: ParsedToken.Text?) -> ParsedToken.Text? {
            text.map {
                ParsedToken.Text(
                    start: UInt32(truncatingIfNeeded: Int($0.start) + distance),
                    end: UInt32(truncatingIfNeeded: Int($0.end) + distance))
            }
        }
        var moved = self
        moved.algorithm = move(algorithm)
        moved.keyID = move(keyID)
        moved.type = move(type)
        moved.chain = move(chain)
        return moved
    }
}
