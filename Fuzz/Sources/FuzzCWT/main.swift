import FuzzSupport
import TokenVerifier

/// CWTs (spec §2b): the input is the CBOR of a COSE_Sign1 message; its base64url goes through
/// the CWT parser (the strict CBOR reader, the headers, the claims) and then every check, as a
/// bare-token line and in audit mode.
runFuzzer { bytes in
    let token = Base64URL.encode(Array(bytes))
    if case .success(let parsed) = CompactToken.parse(token) {
        precondition(parsed.format == .cwt, "a token without a dot is a CWT")
        precondition(parsed.signature.count <= bytes.count, "the signature lies inside the message")
    }
    token.withUnsafeBufferPointer {
        FuzzVerifier.answer($0)
        FuzzVerifier.answer($0, audit: true)
    }
}
