import TokenVerifier

extension Fixtures {
    /// A self-signed Ed25519 root ("Test Fixtures Root", made once with the openssl command line,
    /// valid to 2126) that issued nothing the tests sign: anchors under which every chain a test
    /// token carries is `untrusted_chain` (spec §3b).
    package static let unrelatedRootPEM = """
        -----BEGIN CERTIFICATE-----
        MIIBYTCCAROgAwIBAgIUfDb+bAW/BSTGnQc61sMMeFTJLGAwBQYDK2VwMB0xGzAZ
        BgNVBAMMElRlc3QgRml4dHVyZXMgUm9vdDAgFw0yNjExMjgxNTMzMjVaGA8yMTI2
        MTEwNDE1MzMyNVowHTEbMBkGA1UEAwwSVGVzdCBGaXh0dXJlcyBSb290MCowBQYD
        K2VwAyEA8av16rZSFwrFHvorj8WQwgWGd8pI2YcubC6PlrxJxzCjYzBhMB0GA1Ud
        DgQWBBSpvZ24UB6Xdlahj4SH9opKrNCxFjAfBgNVHSMEGDAWgBSpvZ24UB6Xdlah
        j4SH9opKrNCxFjAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBBjAFBgMr
        ZXADQQD1e2RiiwUvNXJT8f0KGAtjFfAZQhG1E3nBZNz1/je1AqpEmSfAtMIOB3Ea
        paSrubkJnEmLQM9S16aHnvmvl9QD
        -----END CERTIFICATE-----

        """

    /// ``unrelatedRootPEM`` as trust anchors.
    package static func unrelatedAnchors() -> TrustAnchors {
        try! TrustAnchors.parse(pem: Array(unrelatedRootPEM.utf8), environment: nil, file: "unrelated-root.pem")
    }
}
