import TokenTools
import TokenVerifier

/// One block of consecutive lines of a generated set, as the bytes of each output file.
package struct TokenChunk: Sendable {
    /// Zero-based index of the chunk's first line in the set.
    package let firstLine: Int
    /// `tokens.txt` lines: the bare tokens.
    package internal(set) var tokens: [UInt8] = []
    /// `requests.jsonl` lines: requests with context and an `id`.
    package internal(set) var requests: [UInt8] = []
    /// `expected.jsonl` lines: `{"line":N,"valid":…,"reason":…}`.
    package internal(set) var expected: [UInt8] = []
    /// `revocations.jsonl` lines for the chunk's revoked tokens.
    package internal(set) var revocations: [UInt8] = []
    /// `device-steps.jsonl` lines (sets with a step share only).
    package internal(set) var deviceSteps: [UInt8] = []
    /// The expected verdict of each line: nil for valid, else the reason. Lines whose verdict is
    /// `step_required` (it depends on the device steps written alongside, not on the token) are
    /// nil here too and counted in `stepRequiredLines`.
    package internal(set) var reasons: [Reason?] = []
    /// Lines expected to be `step_required`.
    package internal(set) var stepRequiredLines = 0
    /// The non-zero status list entries of the chunk's tokens: (format, line, value).
    package internal(set) var statusEntries: [(format: TokenFormat, index: Int, value: UInt8)] = []
    /// Lines whose token was signed for this chunk (the others repeat an earlier line's token).
    package internal(set) var signedTokens = 0
    /// Of those, the ES256 ones.
    package internal(set) var signedES256 = 0

    /// Lines in the chunk.
    package var lineCount: Int { reasons.count }
    /// Lines expected to be valid.
    package var validLines: Int { reasons.reduce(0) { $0 + ($1 == nil ? 1 : 0) } - stepRequiredLines }
    /// Revocation entries in the chunk.
    package var revocationCount: Int { revocations.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } }

    init(firstLine: Int, lineCapacity: Int) {
        self.firstLine = firstLine
        tokens.reserveCapacity(lineCapacity * 400)
        requests.reserveCapacity(lineCapacity * 520)
        expected.reserveCapacity(lineCapacity * 40)
        reasons.reserveCapacity(lineCapacity)
    }
}

/// Makes chunks on one thread: its own signers (OpenSSL state is per thread) and scratch buffers.
final class ChunkWorker {
    private let spec: TokenSetSpec
    private let ed25519: TokenSigner
    private let es256: TokenSigner
    private let ed25519CWT: CWTSigner
    private let es256CWT: CWTSigner
    private let chains: GenChains?
    /// JWS signers for chained tokens, made on first use: leaf index × 2 (+1 for ES256).
    private var chainSigners: [Int: TokenSigner] = [:]
    private var claims: [UInt8] = []
    private var presented: [UInt8] = []
    private var scratch: [UInt8] = []
    /// Per line of the current chunk: where its token lies in `tokens`, and its request context
    /// (`","device":…}` up to the closing brace) in `requests`, for repeats.
    private var tokenRanges: [Range<Int>] = []
    private var contextRanges: [Range<Int>] = []
    /// Per line: its expected verdict after `{"line":N` (without the newline) in `expected`.
    private var verdictRanges: [Range<Int>] = []

    private enum Kind { case valid, expired, revoked, tampered, wrongContext }

    init(spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey), chains: GenChains?) {
        self.spec = spec
        self.chains = chains
        ed25519 = TokenSigner(key: keys.ed25519)
        es256 = TokenSigner(key: keys.es256)
        ed25519CWT = CWTSigner(key: keys.ed25519)
        es256CWT = CWTSigner(key: keys.es256)
        claims.reserveCapacity(512)
        presented.reserveCapacity(512)
        scratch.reserveCapacity(1024)
    }

    /// The chunk `index` of the set.
    func makeChunk(_ index: Int) -> TokenChunk {
        let first = index * TokenSetSpec.linesPerChunk
        let end = min(spec.count, first + TokenSetSpec.linesPerChunk)
        var chunk = TokenChunk(firstLine: first, lineCapacity: end - first)
        tokenRanges.removeAll(keepingCapacity: true)
        contextRanges.removeAll(keepingCapacity: true)
        verdictRanges.removeAll(keepingCapacity: true)
        for line in first..<end {
            if let source = repeatSource(line, chunkStart: first) {
                appendRepeat(line, of: source - first, to: &chunk)
            } else {
                appendLine(line, to: &chunk)
            }
        }
        return chunk
    }

    /// The earlier line of the same chunk that `line` repeats, if it is a repeat.
    private func repeatSource(_ line: Int, chunkStart: Int) -> Int? {
        guard spec.repeatShare > 0, line > chunkStart else { return nil }
        var random = SplitMix64(spec.seed ^ 0xA5A5_5A5A ^ UInt64(line) &* 0x9E37_79B9_7F4A_7C15)
        guard random.unit() < spec.repeatShare else { return nil }
        return chunkStart + Int(random.next() % UInt64(line - chunkStart))
    }

    private func appendRepeat(_ line: Int, of source: Int, to chunk: inout TokenChunk) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: chunk.tokens[tokenRanges[source]])
        let tokenStart = chunk.tokens.count
        chunk.tokens.append(contentsOf: scratch)
        tokenRanges.append(tokenStart..<chunk.tokens.count)
        chunk.tokens.append(UInt8(ascii: "\n"))
        chunk.requests.append(ascii: "{\"id\":")
        chunk.requests.append(decimal: line + 1)
        chunk.requests.append(ascii: ",\"token\":\"")
        chunk.requests.append(contentsOf: scratch)
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: chunk.requests[contextRanges[source]])
        let contextStart = chunk.requests.count
        chunk.requests.append(contentsOf: scratch)
        contextRanges.append(contextStart..<chunk.requests.count)
        chunk.requests.append(UInt8(ascii: "\n"))
        chunk.reasons.append(chunk.reasons[source])
        if chunk.expected[verdictRanges[source]].starts(with: Self.stepRequiredVerdict) { chunk.stepRequiredLines += 1 }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: chunk.expected[verdictRanges[source]])
        chunk.expected.append(ascii: "{\"line\":")
        chunk.expected.append(decimal: line + 1)
        let verdictStart = chunk.expected.count
        chunk.expected.append(contentsOf: scratch)
        verdictRanges.append(verdictStart..<chunk.expected.count)
        chunk.expected.append(UInt8(ascii: "\n"))
    }

    private static let stepRequiredVerdict = Array(",\"valid\":false,\"reason\":\"step_required\"".utf8)

    /// What one generated line is, drawn from its seed: the algorithm, the kind, the device and
    /// object, and where the claims' `jti` and `role` lie.
    private struct Line {
        let number: Int
        let isES256: Bool
        let kind: Kind
        let device: Int
        let object: Int
        let isCWT: Bool
        let status: UInt8?
        let leaf: Int?
        var jti: Range<Int> = 0..<0
        var roleStart = 0
    }

    /// The kinds by share, in the order a line's roll is compared with their running total;
    /// a roll past them all is valid.
    private var kindShares: [(share: Double, kind: Kind)] {
        [
            (spec.expiredShare, .expired), (spec.revokedShare, .revoked), (spec.tamperedShare, .tampered),
            (spec.wrongContextShare, .wrongContext),
        ]
    }

    private func drawKind(roll: Double) -> Kind {
        var threshold = 0.0
        for (share, kind) in kindShares {
            threshold += share
            if roll < threshold { return kind }
        }
        return .valid
    }

    private func appendLine(_ line: Int, to chunk: inout TokenChunk) {
        var random = SplitMix64(spec.seed ^ UInt64(line) &* 0xD1B5_4A32_D192_ED03)
        let isES256 = random.unit() < spec.es256Share
        let kind = drawKind(roll: random.unit())
        let device = Int(random.next() % 100_000)
        let object = Int(random.next() % 20_000)
        var drawn = Line(
            number: line, isES256: isES256, kind: kind, device: device, object: object, isCWT: spec.isCWT(line),
            status: spec.statusEntry(line), leaf: chains == nil ? nil : spec.chainLeaf(line))
        appendClaims(&drawn, random: &random)
        let token = appendToken(drawn, to: &chunk)
        let commandIndex = Int(random.next() % 3)
        let verdict = verdict(of: drawn, to: &chunk)
        appendRequest(drawn, token: token, command: kind == .wrongContext ? 3 : commandIndex, to: &chunk)
        var missingStep: Int? = nil
        if spec.stepShare > 0 {
            let done = spec.stepsDone(device: device, object: object)
            chunk.appendDeviceSteps(device: device, object: object, done: done)
            // Check 11b comes after the context checks (11) and before the signature (12).
            if (verdict == nil || verdict == .badSignature) && done < TokenSetSpec.stepsRequired(command: commandIndex)
            {
                missingStep = done
            }
        }
        if let missingStep {
            appendStepRequired(
                line, command: commandIndex, step: missingStep, device: device, object: object, to: &chunk)
        } else {
            appendExpected(line, verdict, to: &chunk)
        }
    }

    /// Writes the line's claims JSON into `claims`, drawing its `iat` and `exp`.
    private func appendClaims(_ line: inout Line, random: inout SplitMix64) {
        let issuedAt = Int(spec.checkTime) - 86_400 - Int(random.next() % 86_400)
        let expiresAt =
            line.kind == .expired
            ? Int(spec.checkTime) - 1 - Int(random.next() % 3600) : Int(spec.checkTime) + 86_400 * 30
        claims.removeAll(keepingCapacity: true)
        claims.append(ascii: "{\"iss\":\"gen-operator\",\"sub\":\"phone-")
        claims.append(decimal: line.device)
        claims.append(ascii: "\",\"aud\":\"car-")
        claims.append(decimal: line.object)
        claims.append(ascii: "\",\"jti\":\"")
        let jtiStart = claims.count
        appendJTI(line.number)
        line.jti = jtiStart..<claims.count
        claims.append(ascii: "\",\"iat\":")
        claims.append(decimal: issuedAt)
        claims.append(ascii: ",\"exp\":")
        claims.append(decimal: expiresAt)
        claims.append(
            ascii: ",\"env\":\"int\",\"ch\":[\"ble\",\"nfc\",\"uwb\"],\"cmd\":[\"unlock\",\"lock\",\"engine_start\"],")
        if line.status != nil {
            claims.append(ascii: "\"status\":{\"status_list\":{\"idx\":")
            claims.append(decimal: line.number)
            claims.append(ascii: ",\"uri\":\"")
            claims.append(contentsOf: spec.statusListURI(line.isCWT ? .cwt : .jws).utf8)
            claims.append(ascii: "\"}},")
        }
        claims.append(ascii: "\"role\":\"")
        line.roleStart = claims.count
        claims.append(ascii: "owner\"}")
    }

    /// Signs the claims (a tampered line presents `"role":"admin"`) and appends the token line;
    /// returns where the token lies in the chunk's tokens.
    private func appendToken(_ line: Line, to chunk: inout TokenChunk) -> Range<Int> {
        let signer = jwsSigner(line)
        let tokenStart = chunk.tokens.count
        if line.isCWT {
            appendCWT(
                line.isES256 ? es256CWT : ed25519CWT,
                protected: line.leaf.map { chains!.leaf($0, es256: line.isES256).coseProtected },
                tampered: line.kind == .tampered, roleStart: line.roleStart, to: &chunk.tokens)
        } else {
            claims.withUnsafeBufferPointer { claimBytes in
                if line.kind == .tampered {
                    presented.removeAll(keepingCapacity: true)
                    presented.append(contentsOf: claimBytes[..<line.roleStart])
                    presented.append(ascii: "admin\"}")
                    presented.withUnsafeBufferPointer {
                        signer.appendToken(claims: claimBytes, to: &chunk.tokens, presentedClaims: $0)
                    }
                } else {
                    signer.appendToken(claims: claimBytes, to: &chunk.tokens)
                }
            }
        }
        chunk.signedTokens += 1
        if line.isES256 { chunk.signedES256 += 1 }
        let tokenEnd = chunk.tokens.count
        tokenRanges.append(tokenStart..<tokenEnd)
        chunk.tokens.append(UInt8(ascii: "\n"))
        return tokenStart..<tokenEnd
    }

    /// The JWS signer of the line: by `kid`, or with its leaf's chain in the header.
    private func jwsSigner(_ line: Line) -> TokenSigner {
        guard let leaf = line.leaf, let chains else { return line.isES256 ? es256 : ed25519 }
        let slot = leaf * 2 + (line.isES256 ? 1 : 0)
        if let signer = chainSigners[slot] { return signer }
        let signer = TokenSigner(
            key: line.isES256 ? es256.key : ed25519.key, header: chains.leaf(leaf, es256: line.isES256).jwsHeader)
        chainSigners[slot] = signer
        return signer
    }

    /// The line's expected reason before steps (nil: valid), recording its revocation and its
    /// status list entry. Check 10's status lists come after the revocations and before the
    /// context (11), the steps (11b) and the signature (12).
    private func verdict(of line: Line, to chunk: inout TokenChunk) -> Reason? {
        let reason: Reason?
        switch line.kind {
        case .valid: reason = nil
        case .expired: reason = .expired
        case .revoked:
            reason = .revokedToken
            chunk.revocations.append(ascii: "{\"jti\":\"")
            chunk.revocations.append(contentsOf: claims[line.jti])
            chunk.revocations.append(ascii: "\"}\n")
        case .tampered: reason = .badSignature
        case .wrongContext: reason = .commandNotPermitted
        }
        var statusReason: Reason? = nil
        if let status = line.status, status != 0 {
            chunk.statusEntries.append((line.isCWT ? .cwt : .jws, line.number, status))
            if line.kind == .valid || line.kind == .wrongContext || line.kind == .tampered {
                statusReason = status == 2 ? .statusSuspended : .statusInvalid
            }
        }
        return statusReason ?? reason
    }

    /// Appends the line's request: its token and context (command 3 is one never permitted).
    private func appendRequest(_ line: Line, token: Range<Int>, command: Int, to chunk: inout TokenChunk) {
        chunk.requests.append(ascii: "{\"id\":")
        chunk.requests.append(decimal: line.number + 1)
        chunk.requests.append(ascii: ",\"token\":\"")
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: chunk.tokens[token])
        chunk.requests.append(contentsOf: scratch)
        let contextStart = chunk.requests.count
        chunk.requests.append(ascii: "\",\"device\":\"phone-")
        chunk.requests.append(decimal: line.device)
        chunk.requests.append(ascii: "\",\"object\":\"car-")
        chunk.requests.append(decimal: line.object)
        chunk.requests.append(ascii: "\",\"channel\":\"ble\",\"command\":\"")
        switch command {
        case 0: chunk.requests.append(ascii: "unlock")
        case 1: chunk.requests.append(ascii: "lock")
        case 2: chunk.requests.append(ascii: "engine_start")
        default: chunk.requests.append(ascii: "horn")
        }
        chunk.requests.append(ascii: "\"}")
        contextRanges.append(contextStart..<chunk.requests.count)
        chunk.requests.append(UInt8(ascii: "\n"))
    }

    /// Appends the CWT of `claims` (with `"role":"admin"` presented instead when tampered).
    private func appendCWT(
        _ signer: CWTSigner, protected: [UInt8]?, tampered: Bool, roleStart: Int, to tokens: inout [UInt8]
    ) {
        var presentedPayload: [UInt8]? = nil
        if tampered {
            presented.removeAll(keepingCapacity: true)
            presented.append(contentsOf: claims[..<roleStart])
            presented.append(ascii: "admin\"}")
            presentedPayload = try! CWTSigner.claimsCBOR(json: presented)
        }
        let message = signer.sign(
            payload: try! CWTSigner.claimsCBOR(json: claims), protected: protected, presentedPayload: presentedPayload)
        message.withUnsafeBufferPointer { Base64URL.append($0, to: &tokens) }
    }

    /// `step_required` with spec §4b's detail, e.g. `command "unlock" needs step "deviceActivation"
    /// of device "phone-1" for object "car-1"`.
    private func appendStepRequired(
        _ line: Int, command: Int, step: Int, device: Int, object: Int, to chunk: inout TokenChunk
    ) {
        chunk.reasons.append(nil)
        chunk.stepRequiredLines += 1
        chunk.expected.append(ascii: "{\"line\":")
        chunk.expected.append(decimal: line + 1)
        let verdictStart = chunk.expected.count
        chunk.expected.append(contentsOf: Self.stepRequiredVerdict)
        chunk.expected.append(ascii: ",\"detail\":\"command \\\"")
        chunk.expected.append(ascii: TokenSetSpec.commandNames[command])
        chunk.expected.append(ascii: "\\\" needs step \\\"")
        chunk.expected.append(ascii: TokenSetSpec.stepOrder[step])
        chunk.expected.append(ascii: "\\\" of device \\\"phone-")
        chunk.expected.append(decimal: device)
        chunk.expected.append(ascii: "\\\" for object \\\"car-")
        chunk.expected.append(decimal: object)
        chunk.expected.append(ascii: "\\\"\"}")
        verdictRanges.append(verdictStart..<chunk.expected.count)
        chunk.expected.append(UInt8(ascii: "\n"))
    }

    private func appendJTI(_ line: Int) {
        claims.append(ascii: "gen-")
        claims.append(decimal: spec.seed)
        claims.append(UInt8(ascii: "-"))
        claims.append(decimal: line)
    }

    private func appendExpected(_ line: Int, _ reason: Reason?, to chunk: inout TokenChunk) {
        chunk.reasons.append(reason)
        chunk.expected.append(ascii: "{\"line\":")
        chunk.expected.append(decimal: line + 1)
        let verdictStart = chunk.expected.count
        if let reason {
            chunk.expected.append(ascii: ",\"valid\":false,\"reason\":\"")
            chunk.expected.append(contentsOf: reason.rawValue.utf8)
            chunk.expected.append(ascii: "\"}")
        } else {
            chunk.expected.append(ascii: ",\"valid\":true}")
        }
        verdictRanges.append(verdictStart..<chunk.expected.count)
        chunk.expected.append(UInt8(ascii: "\n"))
    }
}
