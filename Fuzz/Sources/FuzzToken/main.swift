import FuzzSupport
import TokenVerifier

/// Compact tokens: the parser (segments, base64url, header and claims JSON) and then every
/// check, as a bare-token line.
runFuzzer { bytes in
    let size = bytes.count
    if case .success(let token) = CompactToken.parse(bytes) {
        precondition(token.signingInputLength < size, "the signing input lies inside the token")
    }
    FuzzVerifier.answer(bytes)
}
