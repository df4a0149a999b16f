/// Check 10, after ``RevocationCheck`` (`status_invalid`, `status_suspended`,
/// `status_unavailable`): the token's entry in the status list it names (spec §4c), in the
/// generation in force at the check time among the lists that answer for the token: of its
/// issuer (its `iss`, which check 8 binds to its key or leaf) and its signer's environment. Fails
/// closed: a generation out of force, withdrawn or in conflict answers `status_unavailable`,
/// never an older one.
struct StatusListCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard let status = token.status, !input.options.skipStatusLists else { return }
        let index = input.state.statusIndex
        func uri() -> String { token.string(status.uri) }
        guard index.isConfigured else {
            failures.add(
                .statusUnavailable,
                "token index \(status.index) of status list \"\(uri())\" cannot be checked: no status lists are loaded (--status-lists; --skip-status-lists leaves status unchecked)"
            )
            return
        }
        let facts = findings.keyFacts(input)
        let keyNamesNoIssuer = findings.keyIndex != nil && facts?.issuer == nil
        let lookup = token.withBytes(status.uri) { uri in
            token.withBytes(token.issuer) {
                index.generation(
                    of: uri, issuer: $0, keyNamesNoIssuer: keyNamesNoIssuer, environment: facts?.environment,
                    keyKnown: facts != nil, at: input.time, leeway: input.options.leeway)
            }
        }
        let generation: StatusListGeneration
        switch lookup {
        case .generation(let found): generation = found
        case .noList:
            failures.add(
                .statusUnavailable,
                "token index \(status.index) of status list \"\(uri())\" cannot be checked: none is loaded for that URI"
            )
            return
        case .otherIssuers(let issuers):
            failures.add(
                .statusUnavailable,
                "token index \(status.index) of status list \"\(uri())\" cannot be checked: none of its lists is signed for the token's issuer and environment (\(Self.tokenIssuer(token, findings, input)); loaded for: \(issuers.joined(separator: ", ")))"
            )
            return
        case .notIssuedYet(let first):
            failures.add(
                .statusUnavailable,
                "no generation of status list \"\(uri())\" was issued by \(NumericDate.rfc3339(input.time)) (the first is issued \(NumericDate.rfc3339(first)))"
            )
            return
        }
        guard let list = Self.list(generation, status: status.index, uri: uri, input, &failures) else { return }
        guard let value = list.status(at: status.index) else {
            failures.add(
                .statusUnavailable,
                "token index \(status.index) is beyond status list \"\(uri())\" (issued \(NumericDate.rfc3339(list.issuedAt))), which has \(list.count) entries"
            )
            return
        }
        guard value != 0 else { return }
        let reason: Reason = value == 2 ? .statusSuspended : .statusInvalid
        failures.add(
            reason,
            "token index \(status.index) of status list \"\(uri())\" (issued \(NumericDate.rfc3339(list.issuedAt))) is \(StatusValue.describe(value))"
        )
    }

    /// The list of `generation` that answers at the check time, or nil with the failure added:
    /// the generation out of force (its signer failing the rule, revoked by then, or withdrawn),
    /// in conflict, or expired.
    private static func list(
        _ generation: StatusListGeneration, status index: UInt64, uri: () -> String, _ input: CheckInput,
        _ failures: inout FailureList
    ) -> StatusListToken? {
        let time = input.time
        let issued = NumericDate.rfc3339(generation.issuedAt)
        switch generation.state {
        case .inForce(let list, let revokedFrom, let why):
            if time >= revokedFrom {
                failures.add(
                    .statusUnavailable,
                    "token index \(index) of status list \"\(uri())\" cannot be checked: its generation issued \(issued) is out of force (its signer: \(why)), and an older generation never stands in for it"
                )
                return nil
            }
            if let expiresAt = list.expiresAt, expiresAt <= time {
                failures.add(
                    .statusUnavailable,
                    "status list \"\(uri())\" (issued \(issued)) expired at \(NumericDate.rfc3339(expiresAt)); the check time is \(NumericDate.rfc3339(time))"
                )
                return nil
            }
            return list
        case .outOfForce(_, let why):
            failures.add(
                .statusUnavailable,
                "token index \(index) of status list \"\(uri())\" cannot be checked: its generation issued \(issued) is out of force (\(why)), and an older generation never stands in for it"
            )
        case .conflicting:
            failures.add(
                .statusUnavailable,
                "token index \(index) of status list \"\(uri())\" cannot be checked: its generations issued \(issued) hold different entries (\(generation.sources))"
            )
        }
        return nil
    }

    /// The token's issuer and environment as the lookup saw them.
    private static func tokenIssuer(
        _ token: borrowing ParsedToken, _ findings: CheckFindings, _ input: CheckInput
    ) -> String {
        let environment = findings.keyFacts(input)?.environment.map { ", its signer's env \($0.rawValue)" } ?? ""
        if let chain = findings.chainKey {
            return
                "its iss \"\(token.string(token.issuer))\", bound to the chain's \(chain.leafDescription)\(environment)"
        }
        guard let keyIndex = findings.keyIndex else { return "its key is unknown" }
        guard let issuer = input.state.keys.keys[keyIndex].issuer else {
            return "its iss \"\(token.string(token.issuer))\"; its key names no iss\(environment)"
        }
        return "its key's iss \"\(issuer)\"\(environment)"
    }
}
/// The values of a status list entry (draft §7.1).
enum StatusValue {
    /// `0x01 INVALID`, `0x02 SUSPENDED`, `0x03 (application-specific)`, `0x05 (reserved)`, …
    static func describe(_ value: UInt8) -> String {
        let hex = "0x" + (value < 16 ? "0" : "") + String(value, radix: 16, uppercase: true)
        switch value {
        case 0: return hex + " VALID"
        case 1: return hex + " INVALID"
        case 2: return hex + " SUSPENDED"
        case 3, 0x0C...0x0F: return hex + " (application-specific)"
        default: return hex + " (reserved)"
        }
    }
}
