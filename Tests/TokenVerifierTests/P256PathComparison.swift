import CTokenCrypto

@testable import TokenVerifier

/// One P-256 key checked through both verification paths: EVP_PKEY_verify and the key's
/// precomputed table (built here, synchronously).
struct P256PathComparison {
    let key: P256PublicKey
    let context: P256VerifyContext

    /// Nil when the point is not a valid key; the key's table must be built.
    init?(x: [UInt8], y: [UInt8]) {
        guard let key = P256PublicKey(x: x, y: y) else { return nil }
        _ = key.buildTable()
        guard key.table != nil else { return nil }
        self.key = key
        self.context = P256VerifyContext(key: key)
    }

    /// The two verdicts on `signature` of `message`: (EVP, table).
    func verdicts(signature: [UInt8], message: [UInt8]) -> (evp: Bool, table: Bool) {
        signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                // The key's table is built, so a 64-byte signature goes through it (the context
                // makes its table scratch on the first).
                let table = context.verify(signature: s, message: m)
                precondition(signature.count != 64 || context.tableScratch != nil, "the table path was not taken")
                return (context.verifyWithEVP(signature: s, message: m), table)
            }
        }
    }

    /// The table path's verdicts on `inputs` verified as the batch engine verifies a batch: the
    /// inverses of every 64-byte signature's s made together (`tv_p256_table_inverses`) and
    /// each handed to its signature's verify as the hint.
    func batchedVerdicts(_ inputs: [(signature: [UInt8], message: [UInt8])]) -> [Bool] {
        let sValues = inputs.filter { $0.signature.count == 64 }.flatMap { $0.signature[32..<64] }
        var inverses = [UInt64](repeating: 0xAA, count: sValues.count / 8)
        tv_p256_table_inverses(sValues, sValues.count / 32, &inverses)
        var next = 0
        return inputs.map { input in
            var hint: Int?
            if input.signature.count == 64 {
                hint = next
                next += 1
            }
            return input.signature.withUnsafeBufferPointer { s in
                input.message.withUnsafeBufferPointer { m in
                    inverses.withUnsafeBufferPointer { limbs in
                        context.verify(signature: s, message: m, inverse: hint.map { limbs.baseAddress! + 4 * $0 })
                    }
                }
            }
        }
    }
}

/// An ECDSA signature in DER (SEQUENCE of two INTEGERs, X.690 DER only: definite short or long
/// form lengths, minimal, non-negative integers) as 64 bytes r‖s; nil when the bytes are not such
/// an encoding of two integers below 2²⁵⁶.
func derSignatureToRawForm(_ der: [UInt8]) -> [UInt8]? {
    var position = 0
    func length() -> Int? {
        guard position < der.count else { return nil }
        let first = Int(der[position])
        position += 1
        if first < 0x80 { return first }
        guard first == 0x81, position < der.count, der[position] >= 0x80 else { return nil }
        position += 1
        return Int(der[position - 1])
    }
    func integer() -> [UInt8]? {
        guard position < der.count, der[position] == 0x02 else { return nil }
        position += 1
        guard let count = length(), count > 0, position + count <= der.count else { return nil }
        var bytes = Array(der[position..<position + count])
        position += count
        guard bytes[0] & 0x80 == 0 else { return nil }
        if bytes.count > 1, bytes[0] == 0 {
            guard bytes[1] & 0x80 != 0 else { return nil }
            bytes.removeFirst()
        }
        guard bytes.count <= 32 else { return nil }
        return [UInt8](repeating: 0, count: 32 - bytes.count) + bytes
    }
    guard der.first == 0x30 else { return nil }
    position = 1
    guard let body = length(), position + body == der.count, let r = integer(), let s = integer(),
        position == der.count
    else { return nil }
    return r + s
}
