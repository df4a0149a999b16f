/// docs/x509-limbo.md: the agreement figures of X509LimboTests and each listed disagreement.
struct X509LimboReport {
    let outcomes: [X509LimboTests.Outcome]
    let listed: [String: String]

    var markdown: String {
        var lines = [
            "# x509-limbo: chain validation against the test suite's expectations",
            "",
            "The path-validation cases of [x509-limbo](https://github.com/C2SP/x509-limbo) vendored in",
            "`Tests/Vectors/x509-limbo` run through `TrustAnchors.validate(_:at:profile: .pathOnly)`",
            "(OpenSSL's `X509_verify_cert`, strict, partial chains, at most 8 certificates; SPEC §3b):",
            "each case's trusted certificates are the anchors, its peer certificate and untrusted",
            "intermediates the chain, at its `validation_time` (2026-01-01T00:00:00Z when it names none).",
            "The ids `rfc5280::`, `pathlen::`, `pathological::`, `crl::`, `cve::` and `invalid::` apply;",
            "`webpki::` (56 cases) is TLS server naming. Each disagreement is listed with its reason in",
            "`Tests/Vectors/x509-limbo/disagreements.json`; `X509LimboTests` fails on any other, and on a",
            "listed one that agrees.",
            "",
            "Regenerate this page:",
            "",
            "    swift build --build-tests",
            "    X509_LIMBO_REPORT=$PWD/docs/x509-limbo.md swift test --skip-build --filter X509LimboTests",
            "",
            "| ids | cases | agree | disagree |",
            "| --- | ---: | ---: | ---: |",
        ]
        var totals = (0, 0)
        for prefix in X509LimboTests.applicable {
            let group = outcomes.filter { $0.limboCase.id.hasPrefix(prefix) }
            let agree = group.filter { $0.trusted == $0.limboCase.expectSuccess }.count
            totals = (totals.0 + group.count, totals.1 + agree)
            lines.append("| `\(prefix)` | \(group.count) | \(agree) | \(group.count - agree) |")
        }
        lines.append("| all | \(totals.0) | \(totals.1) | \(totals.0 - totals.1) |")
        let wrong = outcomes.filter { $0.trusted != $0.limboCase.expectSuccess }
        let open = wrong.filter(\.trusted).count
        lines += [
            "",
            "Of the \(wrong.count) disagreements, \(open) trust a chain the case expects to fail (each a check",
            "outside tokenverify's profile: CRLs, extendedKeyUsage, peer names, name syntax, serial numbers,",
            "extension criticality) and \(wrong.count - open) refuse a chain the case expects to pass (fail closed).",
        ]
        lines += ["", "## Disagreements", "", "| id | expected | tokenverify | reason |", "| --- | --- | --- | --- |"]
        for outcome in outcomes.sorted(by: { $0.limboCase.id < $1.limboCase.id })
        where outcome.trusted != outcome.limboCase.expectSuccess {
            let expected = outcome.limboCase.expectSuccess ? "SUCCESS" : "FAILURE"
            let got =
                outcome.trusted ? "trusted" : "untrusted: \(outcome.detail.replacingOccurrences(of: "|", with: "\\|"))"
            let reason = listed[outcome.limboCase.id] ?? "**not listed**"
            lines.append("| `\(outcome.limboCase.id)` | \(expected) | \(got) | \(reason) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
