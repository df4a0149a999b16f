/// One device-steps entry (spec §4b): steps device `sub` has done for object `aud`, or for every
/// object when `aud` is nil.
public struct DeviceStepEntry: Sendable, Equatable {
    public var sub: String
    public var aud: String?
    public var done: [String]

    public init(sub: String, aud: String? = nil, done: [String]) {
        self.sub = sub
        self.aud = aud
        self.done = done
    }
}

/// An immutable snapshot of the security steps devices have done (`--device-steps FILE…`).
///
/// No id is kept: each key, (sub) for an `aud`-less entry or (sub, aud), is a 128-bit keyed hash
/// (random key per snapshot), stored once with the bitmask of the steps done for it; entries
/// for the same key add up (across lines and files). Step names are interned to ids in order of
/// first appearance: ids 0–63 are mask bits, the rare names past 64 distinct ones go to an
/// overflow set of (key, id) pairs. At most 40 bytes per entry (``storageBytes``).
public final class DeviceSteps: Sendable {
    /// The overflow set's element: a key and a step id ≥ 64 done for it.
    struct OverflowKey: Hashable, Sendable {
        var digest: KeyedHash.Digest
        var id: UInt32
    }

    let hasher: KeyedHash
    let table: StepTable
    let names: StepNames
    let overflow: Set<OverflowKey>
    /// Whether any entry is `aud`-less / names an object: a lookup of the other kind is skipped.
    let hasDeviceWide: Bool
    let hasPerObject: Bool

    /// The number of entries (non-blank lines) loaded.
    public let count: Int

    /// The number of distinct (sub) and (sub, aud) keys.
    public var keyCount: Int { table.count }

    /// The distinct step names seen, in order of first appearance (their ids).
    public var stepNames: [String] { names.strings }

    /// Bytes the snapshot keeps: the table, the overflow set and the step names.
    public var storageBytes: Int {
        table.storageBytes + overflow.capacity * (MemoryLayout<OverflowKey>.stride + 8) + names.storageBytes
    }

    /// No device has done anything.
    public static let empty = DeviceSteps(builder: Builder(expectedCount: 0))

    /// A snapshot holding `entries` (for tools and tests); checked like a file's lines.
    public convenience init(entries: [DeviceStepEntry], file: String = "<memory>") throws(SecurityStepsError) {
        var builder = Builder(expectedCount: entries.count)
        for (index, entry) in entries.enumerated() {
            do throws(JSONError) {
                try builder.add(entry)
            } catch {
                throw SecurityStepsError(file: file, line: index + 1, message: error.description)
            }
        }
        self.init(builder: builder)
    }

    init(builder: Builder) {
        builder.table.finish()
        hasher = builder.hasher
        table = builder.table
        names = builder.names
        overflow = builder.overflow
        hasDeviceWide = builder.hasDeviceWide
        hasPerObject = builder.hasPerObject
        count = builder.count
    }

    // MARK: - Lookups

    /// The id of step `name`, or nil when no entry names it (then no device has done it).
    func stepID(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        names.id(of: name)
    }

    /// The steps 0–63 `device` has done for every object (its `aud`-less entries).
    @inline(__always)
    func deviceWideMask(device: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard hasDeviceWide else { return 0 }
        return table.mask(Self.digest(device: device, object: nil, hasher)) ?? 0
    }

    /// The steps 0–63 `device` has done for `object` by entries naming it (not the `aud`-less ones).
    @inline(__always)
    func objectMask(device: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard hasPerObject else { return 0 }
        return table.mask(Self.digest(device: device, object: object, hasher)) ?? 0
    }

    /// The key of `device`'s `aud`-less entries, nil when the snapshot has none.
    @inline(__always)
    func deviceKey(_ device: UnsafeBufferPointer<UInt8>) -> KeyedHash.Digest? {
        hasDeviceWide ? Self.digest(device: device, object: nil, hasher) : nil
    }

    /// The key of `device`'s entries for `object`, nil when the snapshot has none naming an object.
    @inline(__always)
    func objectKey(_ device: UnsafeBufferPointer<UInt8>, _ object: UnsafeBufferPointer<UInt8>) -> KeyedHash.Digest? {
        hasPerObject ? Self.digest(device: device, object: object, hasher) : nil
    }

    /// The steps 0–63 done under either key, ORed (both looked up at once: their misses overlap).
    @inline(__always)
    func mask(deviceKey: KeyedHash.Digest?, objectKey: KeyedHash.Digest?) -> UInt64 {
        table.masks(deviceKey, objectKey)
    }

    /// Whether `device` has done step `id` for `object` (by an `aud`-less entry or one naming it).
    func hasDone(_ id: Int, device: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>) -> Bool {
        if id < 64 {
            return (deviceWideMask(device: device) | objectMask(device: device, object: object)) & (1 << UInt64(id))
                != 0
        }
        return hasOverflowStep(id, device: device, object: object)
    }

    /// Whether `device` has done step `id` ≥ 64 for `object` (the overflow set).
    func hasOverflowStep(_ id: Int, device: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !overflow.isEmpty else { return false }
        let id = UInt32(id)
        return
            (hasDeviceWide
            && overflow.contains(OverflowKey(digest: Self.digest(device: device, object: nil, hasher), id: id)))
            || (hasPerObject
                && overflow.contains(OverflowKey(digest: Self.digest(device: device, object: object, hasher), id: id)))
    }

    /// Whether `device` has done `step` for `object`.
    public func hasDone(_ step: String, device: String, object: String) -> Bool {
        withUTF8(of: step) { step in
            guard let id = stepID(step) else { return false }
            return withUTF8(of: device) { device in withUTF8(of: object) { hasDone(id, device: device, object: $0) } }
        }
    }

    /// The keyed digest of a key: a tag byte (1: device only, 2: device and object), then the
    /// device's UTF-8 (length-prefixed when an object follows), then the object's; never zero.
    @inline(__always)
    static func digest(
        device: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>?, _ hasher: KeyedHash
    ) -> KeyedHash.Digest {
        let deviceCount = device.count
        let objectCount = object?.count ?? 0
        let total = 1 + (object == nil ? 0 : 4) + deviceCount + objectCount
        return withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { buffer in
            let base = buffer.baseAddress!
            var offset = 1
            if object == nil {
                base.storeBytes(of: 1, as: UInt8.self)
            } else {
                base.storeBytes(of: 2, as: UInt8.self)
                base.storeBytes(of: UInt32(deviceCount).littleEndian, toByteOffset: 1, as: UInt32.self)
                offset = 5
            }
            if deviceCount > 0 { (base + offset).copyMemory(from: device.baseAddress!, byteCount: deviceCount) }
            offset += deviceCount
            if objectCount > 0, let object {
                (base + offset).copyMemory(from: object.baseAddress!, byteCount: objectCount)
            }
            return StepTable.key(hasher.hash(UnsafeRawBufferPointer(buffer)))
        }
    }
}
