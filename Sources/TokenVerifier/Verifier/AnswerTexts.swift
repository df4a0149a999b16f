/// A borrowed view of a valid verdict's texts: what an answer (spec §6) says of a valid token,
/// each text a range of the parsed token's bytes, lent for the length of
/// ``VerificationResult/withAnswerTexts(_:)``'s body. An answer format (LineProtocol's JSON lines
/// and Arrow columns) writes from it without a copy; an invalid verdict's answer is its
/// ``VerificationResult/failures`` and ``VerificationResult/format``.
@usableFromInline package struct AnswerTexts {
    @usableFromInline let token: ParsedToken
    @usableFromInline let storage: UnsafeBufferPointer<UInt8>

    @inlinable init(token: ParsedToken, storage: UnsafeBufferPointer<UInt8>) {
        self.token = token
        self.storage = storage
    }

    @inlinable @inline(__always)
    func text(_ text: ParsedToken.Text) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: storage[Int(text.start)..<Int(text.end)])
    }

    /// `jti`.
    @inlinable package var tokenID: UnsafeBufferPointer<UInt8> { text(token.tokenID) }
    /// `sub`.
    @inlinable package var subject: UnsafeBufferPointer<UInt8> { text(token.subject) }
    /// The number of `aud` items (1 for a single string).
    @inlinable package var audienceCount: Int { Int(token.audience.count) }
    /// `aud` item `index`.
    @inlinable package func audience(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        text(token.item(token.audience, index))
    }
    /// Whether `aud` is an array (else one string).
    @inlinable package var audienceIsArray: Bool { token.audienceIsArray }
    /// `kid`, when the header has one.
    @inlinable package var keyID: UnsafeBufferPointer<UInt8>? { token.keyID.map(text) }
    /// `alg`, when the header has one.
    @inlinable package var algorithm: UnsafeBufferPointer<UInt8>? { token.algorithm.map(text) }
    /// `role`, when the claims have one.
    @inlinable package var role: UnsafeBufferPointer<UInt8>? { token.role.map(text) }
    /// `exp`.
    @inlinable package var expiresAt: Double { token.expiresAt }
    /// JWS or CWT.
    @inlinable package var format: TokenFormat { token.format }
}

extension VerificationResult {
    /// Calls `body` with this verdict's texts when the verdict is valid, and returns what it
    /// returns; nil for an invalid verdict. The texts are lent for the length of the call.
    @inlinable
    package func withAnswerTexts<Result>(_ body: (AnswerTexts) throws -> Result) rethrows -> Result? {
        guard failures.isEmpty, let token = parsed else { return nil }
        return try token.storage.withUnsafeBufferPointer { try body(AnswerTexts(token: token, storage: $0)) }
    }
}
