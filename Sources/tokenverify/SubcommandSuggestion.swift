import ArgumentParser

/// A mistyped subcommand (`tokenverify verfy --keys k.jwks`) is named as such, with the
/// closest known one, instead of the argument parser's "Unknown option '--keys'".
enum SubcommandSuggestion {
    /// The message for `arguments` (without the program name), or nil when every subcommand
    /// word is known.
    static func problem(
        in arguments: [String], command: any ParsableCommand.Type = TokenVerify.self, path: String = "tokenverify"
    ) -> String? {
        let subcommands = command.configuration.subcommands
        guard !subcommands.isEmpty, let word = arguments.first, !word.hasPrefix("-") else { return nil }
        let names = subcommands.map { $0._commandName } + ["help"]
        if let match = subcommands.first(where: { $0._commandName == word }) {
            return problem(in: Array(arguments.dropFirst()), command: match, path: path + " " + word)
        }
        if word == "help" { return nil }
        let closest = names.min { distance(word, $0) < distance(word, $1) }!
        let hint = distance(word, closest) <= max(2, word.count / 2) ? " Did you mean '\(closest)'?" : ""
        return
            "'\(word)' is not a subcommand of \(path).\(hint) Subcommands: \(names.dropLast().joined(separator: ", ")) (see '\(path) --help')."
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
