/// Check 11: the request's device, object, channel and command, when given, are those the
/// token grants (`sub`, one of `aud`, one of `ch`, one of `cmd`).
struct RequestContextPolicy {
    func check(_ claims: TokenClaims, _ context: RequestContext, _ failures: inout FailureList) {
        if let device = context.device, device != claims.subject {
            failures.add(.wrongDevice, "the token is for device \"\(claims.subject)\", not \"\(device)\"")
            if failures.isDone { return }
        }
        if let object = context.object, !claims.audience.contains(object) {
            failures.add(.wrongObject, "the token is not for object \"\(object)\"")
            if failures.isDone { return }
        }
        if let channel = context.channel, !claims.channels.contains(channel) {
            failures.add(.channelNotPermitted, "channel \"\(channel)\" is not permitted (permitted: \(claims.channels.joined(separator: ", ")))")
            if failures.isDone { return }
        }
        if let command = context.command, !claims.commands.contains(command) {
            failures.add(.commandNotPermitted, "command \"\(command)\" is not permitted (permitted: \(claims.commands.joined(separator: ", ")))")
        }
    }
}
