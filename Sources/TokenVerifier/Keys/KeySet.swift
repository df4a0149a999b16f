/// An immutable set of verification keys, looked up by `kid`.
public final class KeySet: Sendable {
    /// The keys in the order they were loaded.
    public let keys: [VerificationKey]
    private let indexByKeyID: [String: Int]
    /// What the checks read of each key, and the index by `kid` bytes.
    let facts: KeyFactsTable

    /// A key set from keys whose `kid`s are unique.
    public init(keys: [VerificationKey]) throws(KeySetError) {
        var index: [String: Int] = [:]
        for (position, key) in keys.enumerated() {
            if index.updateValue(position, forKey: key.keyID) != nil {
                throw KeySetError(file: nil, keyID: key.keyID, message: "duplicate kid")
            }
        }
        self.keys = keys
        self.indexByKeyID = index
        self.facts = KeyFactsTable(keys: keys)
    }

    deinit { facts.deallocate() }

    /// The position in ``keys`` of the key with this `kid`.
    @inline(__always)
    func index(of keyID: String) -> Int? {
        indexByKeyID[keyID]
    }

    /// The position in ``keys`` of the key whose `kid` is exactly these UTF-8 bytes (compared
    /// byte for byte, as every string of a token is: no Unicode normalisation).
    @inline(__always)
    func index(of keyID: UnsafeBufferPointer<UInt8>) -> Int? {
        facts.index(of: keyID)
    }

    /// The key with this `kid`.
    public subscript(keyID: String) -> VerificationKey? {
        index(of: keyID).map { keys[$0] }
    }

    /// Loads and merges JWKS files; a `kid` must be unique across all of them.
    /// - Returns: the key set and any warnings (such as a private member that was ignored).
    public static func load(files: [String]) throws(KeySetError) -> (KeySet, warnings: [String]) {
        var documents: [(file: String, bytes: [UInt8])] = []
        var seen: [FileIdentity: String] = [:]
        for file in files {
            if let identity = FileIdentity(path: file) {
                if let earlier = seen.updateValue(file, forKey: identity) {
                    let same = earlier == file ? "given twice" : "the same file as \(earlier)"
                    throw KeySetError(file: file, keyID: nil, message: "\(same): give each key file once")
                }
            }
            do {
                documents.append((file, try readFileBytes(file, limit: FileLimit.keySet)))
            } catch {
                throw KeySetError(file: file, keyID: nil, message: "cannot read key file: \(error.reason)")
            }
        }
        return try merge(documents)
    }

    /// Reads one JWKS document held in memory; `file` names it in errors.
    public static func parse(
        _ bytes: some Collection<UInt8>, file: String = "<memory>"
    ) throws(KeySetError) -> (KeySet, warnings: [String]) {
        try merge([(file, Array(bytes))])
    }

    private static func merge(
        _ documents: [(file: String, bytes: [UInt8])]
    ) throws(KeySetError) -> (KeySet, warnings: [String]) {
        var keys: [VerificationKey] = []
        var warnings: [String] = []
        var origin: [String: String] = [:]
        for (file, bytes) in documents {
            let loaded = try JWKSParser.parse(bytes, file: file)
            for key in loaded.keys {
                if let first = origin[key.keyID] {
                    let where_ = first == file ? "earlier in the same file" : "also in \(first)"
                    throw KeySetError(file: file, keyID: key.keyID, message: "duplicate kid (\(where_))")
                }
                origin[key.keyID] = file
                keys.append(key)
            }
            warnings += loaded.warnings
        }
        return (try KeySet(keys: keys), warnings)
    }
}

/// A key file that cannot be used: start-up stops with this message.
public struct KeySetError: Error, CustomStringConvertible, Sendable {
    /// The file, when the key came from one.
    public var file: String?
    /// The `kid` of the offending key, when it has one.
    public var keyID: String?
    /// What is wrong, in one sentence.
    public var message: String

    /// An error about `file` and the key `keyID` (either may be nil).
    public init(file: String?, keyID: String?, message: String) {
        self.file = file
        self.keyID = keyID
        self.message = message
    }

    public var description: String {
        var text = file.map { "\($0): " } ?? ""
        if let keyID { text += "key \"\(keyID)\": " }
        return text + message
    }
}
