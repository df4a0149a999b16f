import CTokenX509

/// Trust anchors for certificate chains (SPEC §3b): certificates from PEM files, each set tagged
/// with an environment or untagged. One OpenSSL store per environment is built once; validations
/// (`validate(_:at:profile:)`) may then run from many threads at once.
public final class TrustAnchors: Sendable {
    /// The anchors of one environment (nil: untagged) and their OpenSSL store.
    final class Store: @unchecked Sendable {
        // Read-only after init: X509_STORE lookups from concurrent X509_STORE_CTXs are safe.
        let environment: Environment?
        let pointer: UnsafeMutableRawPointer

        init?(environment: Environment?, certificates: [[UInt8]]) {
            guard let pointer = tv_x509_store_new() else { return nil }
            self.environment = environment
            self.pointer = pointer
            for der in certificates {
                guard der.withUnsafeBufferPointer({ tv_x509_store_add(pointer, $0.baseAddress, $0.count) }) == 1 else {
                    return nil
                }
            }
        }

        deinit { tv_x509_store_free(pointer) }
    }

    let stores: [Store]
    /// Every anchor's DER, in the order given (a certificate given twice for one environment once).
    public let certificates: [[UInt8]]
    public var count: Int { certificates.count }

    private init(stores: [Store], certificates: [[UInt8]]) {
        self.stores = stores
        self.certificates = certificates
    }

    /// The anchors of PEM files, each file's certificates tagged with its environment (nil:
    /// untagged). A directory is the caller's to expand into its files.
    public static func load(
        _ sources: [(path: String, environment: Environment?)]
    ) throws(TrustAnchorError) -> TrustAnchors {
        var builder = Builder()
        for source in sources {
            let bytes: [UInt8]
            do {
                bytes = try readFileBytes(source.path, limit: FileLimit.trustAnchors)
            } catch {
                throw TrustAnchorError(file: source.path, reason: .unreadable(error.reason))
            }
            try builder.add(pem: bytes, environment: source.environment, file: source.path)
        }
        return try builder.build()
    }

    /// The anchors of one PEM text (`file` names it in an error).
    public static func parse(
        pem: [UInt8], environment: Environment?, file: String
    ) throws(TrustAnchorError) -> TrustAnchors {
        var builder = Builder()
        try builder.add(pem: pem, environment: environment, file: file)
        return try builder.build()
    }

    /// Collects certificates per environment, refusing one certificate under two environments.
    private struct Builder {
        var certificates: [[UInt8]] = []
        var environments: [Environment?] = []
        var seen: [String: (environment: Environment?, file: String)] = [:]
        var lastFile = ""

        mutating func add(pem: [UInt8], environment: Environment?, file: String) throws(TrustAnchorError) {
            lastFile = file
            for der in try PEMCertificates.parse(pem, file: file) {
                // Only DER: an anchor's identity is its DER (spec §3b).
                guard X509Certificate.encodingFault(der) == nil, X509Certificate(der: der)?.validity != nil else {
                    throw TrustAnchorError(file: file, reason: .notDER)
                }
                let thumbprint = Base64URL.encodeString(sha256(der))
                if let earlier = seen[thumbprint] {
                    guard earlier.environment == environment else {
                        throw TrustAnchorError(
                            file: file,
                            reason: .twoEnvironments(
                                thumbprint: thumbprint,
                                first: Self.name(earlier.environment) + " (\(earlier.file))",
                                second: Self.name(environment)))
                    }
                    continue
                }
                seen[thumbprint] = (environment, file)
                certificates.append(der)
                environments.append(environment)
            }
        }

        func build() throws(TrustAnchorError) -> TrustAnchors {
            var stores: [Store] = []
            for environment in [nil] + Environment.allCases.map(Optional.some) {
                let mine = certificates.indices.filter { environments[$0] == environment }.map { certificates[$0] }
                guard !mine.isEmpty else { continue }
                guard let store = Store(environment: environment, certificates: mine) else {
                    throw TrustAnchorError(file: lastFile, reason: .notDER)
                }
                stores.append(store)
            }
            return TrustAnchors(stores: stores, certificates: certificates)
        }

        static func name(_ environment: Environment?) -> String { environment?.rawValue ?? "untagged" }
    }
}
