/// Check 11 (`wrong_device`, `wrong_object`, `channel_not_permitted`, `command_not_permitted`):
/// the request's device, object, channel and command, when given, are those the token grants
/// (`sub`, one of `aud`, one of `ch`, one of `cmd`).
struct RequestContextCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        let context = input.context
        if let device = context.device, !token.equals(token.subject, device) {
            failures.add(
                .wrongDevice, "the token is for device \"\(token.string(token.subject))\", not \"\(string(device))\"")
            if failures.isDone { return }
        }
        if let object = context.object, !token.contains(token.audience, object) {
            failures.add(.wrongObject, "the token is not for object \"\(string(object))\"")
            if failures.isDone { return }
        }
        if let channel = context.channel, !token.contains(token.channels, channel) {
            failures.add(
                .channelNotPermitted,
                "channel \"\(string(channel))\" is not permitted (permitted: \(token.strings(token.channels).joined(separator: ", ")))"
            )
            if failures.isDone { return }
        }
        if let command = context.command, !token.contains(token.commands, command) {
            failures.add(
                .commandNotPermitted,
                "command \"\(string(command))\" is not permitted (permitted: \(token.strings(token.commands).joined(separator: ", ")))"
            )
        }
    }

    private func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
