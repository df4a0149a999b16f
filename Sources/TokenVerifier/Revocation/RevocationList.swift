/// An immutable revocation snapshot with constant-time lookups.
///
/// Each entry is stored as a 128-bit keyed hash of its selector plus its two time limits
/// (32 bytes), in an open-addressing table of 32-bit indices at most half full: 40 to 48 bytes per
/// entry whatever the lengths of the ids. Entries with the same selector sit side by side in the
/// probe sequence and are all considered.
public final class RevocationList: Sendable {
    /// The kinds of selector, in the order the checks consult them.
    enum Kind: UInt8, CaseIterable {
        case key = 1
        case token, device, object, grant, certificate, keyThumbprint
    }

    struct Slot {
        var digest: KeyedHash.Digest
        var issuedBefore: Double
        var since: Double
    }

    private let hasher: KeyedHash
    private let entries: [Slot]
    /// 0 for an empty slot, else index + 1 into `entries`.
    private let table: [UInt32]
    private let mask: Int
    private let countsByKind: [Int]

    /// The number of entries.
    public var count: Int { entries.count }

    /// Bytes the snapshot keeps for its entries and its table.
    public var storageBytes: Int {
        entries.capacity * MemoryLayout<Slot>.stride + table.capacity * MemoryLayout<UInt32>.stride
    }

    /// An empty list.
    public static let empty = RevocationList(entries: [])

    /// A list holding `entries`.
    public convenience init(entries: [RevocationEntry]) {
        var builder = Builder(expectedCount: entries.count)
        for entry in entries { builder.append(entry) }
        self.init(builder: builder)
    }

    init(builder: Builder) {
        hasher = builder.hasher
        entries = builder.slots
        countsByKind = builder.countsByKind
        var capacity = 16
        while capacity < entries.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        var table = [UInt32](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
            buffer.initialize(repeating: 0)
            initialized = capacity
        }
        for (index, entry) in entries.enumerated() {
            var slot = Int(truncatingIfNeeded: entry.digest.low) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = UInt32(index + 1)
        }
        self.table = table
    }

    /// Whether any entry of `kind` has at least one member.
    @inline(__always)
    func contains(kind: Kind) -> Bool {
        countsByKind[Int(kind.rawValue)] > 0
    }

    /// Whether an entry of `kind` for `value` (UTF-8) revokes a token issued at `issuedAt`, checked at `time`.
    func revokes(_ kind: Kind, _ value: UnsafeBufferPointer<UInt8>, issuedAt: Double?, at time: Double) -> Bool {
        guard contains(kind: kind) else { return false }
        return revokes(digest: Self.digest(kind, value, value2: nil, hasher), issuedAt: issuedAt, at: time)
    }

    /// From when an entry of `kind` for `value` (UTF-8) revokes what was issued at `issuedAt`: the
    /// earliest `since` of the entries whose `issued_before` applies (−∞ for one without
    /// `since`), nil when none does. A check at time t is revoked iff t ≥ that time.
    func revokedSince(_ kind: Kind, _ value: UnsafeBufferPointer<UInt8>, issuedAt: Double?) -> Double? {
        guard contains(kind: kind) else { return nil }
        let digest = Self.digest(kind, value, value2: nil, hasher)
        var earliest: Double? = nil
        var slot = Int(truncatingIfNeeded: digest.low) & mask
        while true {
            let index = table[slot]
            if index == 0 { return earliest }
            let entry = entries[Int(index) - 1]
            if entry.digest == digest, issuedAt.map({ $0 < entry.issuedBefore }) ?? true {
                earliest = min(earliest ?? .infinity, entry.since)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Whether a grant entry for (`device`, `object`) revokes a token issued at `issuedAt`, checked at `time`.
    func revokesGrant(
        device: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>, issuedAt: Double?, at time: Double
    ) -> Bool {
        guard contains(kind: .grant) else { return false }
        return revokes(digest: Self.digest(.grant, device, value2: object, hasher), issuedAt: issuedAt, at: time)
    }

    /// ``revokes(_:_:issuedAt:at:)`` for a String value.
    func revokes(_ kind: Kind, _ value: String, issuedAt: Double?, at time: Double) -> Bool {
        withUTF8(of: value) { revokes(kind, $0, issuedAt: issuedAt, at: time) }
    }

    /// ``revokesGrant(device:object:issuedAt:at:)`` for String values.
    func revokesGrant(device: String, object: String, issuedAt: Double?, at time: Double) -> Bool {
        withUTF8(of: device) { device in
            withUTF8(of: object) { revokesGrant(device: device, object: $0, issuedAt: issuedAt, at: time) }
        }
    }

    private func revokes(digest: KeyedHash.Digest, issuedAt: Double?, at time: Double) -> Bool {
        var slot = Int(truncatingIfNeeded: digest.low) & mask
        while true {
            let index = table[slot]
            if index == 0 { return false }
            let entry = entries[Int(index) - 1]
            if entry.digest == digest, time >= entry.since {
                if let issuedAt {
                    if issuedAt < entry.issuedBefore { return true }
                } else {
                    return true
                }
            }
            slot = (slot + 1) & mask
        }
    }

    /// The keyed digest of a selector: its kind, then its value(s), the first length-prefixed.
    static func digest(_ kind: Kind, _ value: String, value2: String?, _ hasher: KeyedHash) -> KeyedHash.Digest {
        withUTF8(of: value) { first in
            guard let value2 else { return digest(kind, first, value2: nil, hasher) }
            return withUTF8(of: value2) { digest(kind, first, value2: $0, hasher) }
        }
    }

    /// The keyed digest of a selector given as UTF-8.
    static func digest(
        _ kind: Kind, _ first: UnsafeBufferPointer<UInt8>, value2 second: UnsafeBufferPointer<UInt8>?,
        _ hasher: KeyedHash
    ) -> KeyedHash.Digest {
        let firstCount = first.count
        let secondCount = second?.count ?? 0
        let total = 1 + (second == nil ? 0 : 4) + firstCount + secondCount
        return withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { buffer in
            buffer[0] = kind.rawValue
            var offset = 1
            if second != nil {
                withUnsafeBytes(of: UInt32(firstCount).littleEndian) { lengthBytes in
                    buffer.baseAddress!.advanced(by: 1).copyMemory(from: lengthBytes.baseAddress!, byteCount: 4)
                }
                offset += 4
            }
            if firstCount > 0 {
                buffer.baseAddress!.advanced(by: offset).copyMemory(from: first.baseAddress!, byteCount: firstCount)
            }
            offset += firstCount
            if secondCount > 0, let second {
                buffer.baseAddress!.advanced(by: offset).copyMemory(from: second.baseAddress!, byteCount: secondCount)
            }
            return hasher.hash(UnsafeRawBufferPointer(buffer))
        }
    }

    /// Collects entries for a new list.
    struct Builder {
        let hasher = KeyedHash()
        var slots: [Slot] = []
        var countsByKind = [Int](repeating: 0, count: Kind.allCases.count + 1)

        init(expectedCount: Int) {
            slots.reserveCapacity(expectedCount)
        }

        mutating func append(_ entry: RevocationEntry) {
            let digest: KeyedHash.Digest
            let kind: Kind
            switch entry.selector {
            case .token(let jti):
                kind = .token
                digest = RevocationList.digest(kind, jti, value2: nil, hasher)
            case .device(let sub):
                kind = .device
                digest = RevocationList.digest(kind, sub, value2: nil, hasher)
            case .object(let aud):
                kind = .object
                digest = RevocationList.digest(kind, aud, value2: nil, hasher)
            case .key(let kid):
                kind = .key
                digest = RevocationList.digest(kind, kid, value2: nil, hasher)
            case .certificate(let thumbprint):
                kind = .certificate
                digest = RevocationList.digest(kind, thumbprint, value2: nil, hasher)
            case .keyThumbprint(let thumbprint):
                kind = .keyThumbprint
                digest = RevocationList.digest(kind, thumbprint, value2: nil, hasher)
            case .grant(let sub, let aud):
                kind = .grant
                digest = RevocationList.digest(kind, sub, value2: aud, hasher)
            }
            countsByKind[Int(kind.rawValue)] += 1
            slots.append(
                Slot(digest: digest, issuedBefore: entry.issuedBefore ?? .infinity, since: entry.since ?? -.infinity))
        }
    }
}
