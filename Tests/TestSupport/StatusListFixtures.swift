import TokenTools
import TokenVerifier

/// Status List Tokens (spec §4c) for the tests, made with the library's issuer.
extension Fixtures {
    /// The URI the fixtures' lists are published at.
    package static let statusListURI = "https://op.example/statuslists/1"

    /// A signed list at `uri` of `size` entries (`bits` bits each) where `statuses` name the
    /// non-zero entries; JWS or CWT text.
    package static func statusListToken(
        _ key: SigningKey, uri: String = Fixtures.statusListURI, bits: Int = 2, size: Int = 64,
        statuses: [Int: UInt8] = [1: 1, 2: 2, 3: 3], format: TokenFormat = .jws,
        issuedAt: Int64 = Int64(Fixtures.now) - 3600, expiresAt: Int64? = nil,
        timeToLive: Int64? = nil
    ) -> String {
        try! StatusListIssuer(key: key).sign(
            uri: uri, bits: bits, size: size, statuses: statuses, format: format, issuedAt: issuedAt,
            expiresAt: expiresAt, timeToLive: timeToLive)
    }

    /// The loaded, verified list of a token made by ``statusListToken(_:uri:bits:size:statuses:format:issuedAt:expiresAt:timeToLive:)``.
    package func statusList(_ token: String, keys: KeySet? = nil) throws -> StatusListToken {
        try StatusListToken.load(bytes: Array(token.utf8), source: "list", keys: keys ?? keySet)
    }

    /// Claims whose `status` names entry `index` of the list at `uri` (JSON; `sign --format cwt` maps it to 65535).
    package static func claims(
        statusIndex index: Int, uri: String = Fixtures.statusListURI, _ overrides: [String: String?] = [:]
    ) -> String {
        var members = overrides
        members["status"] = #"{"status_list":{"idx":\#(index),"uri":"\#(uri)"}}"#
        return claims(members)
    }
}
