/// Check 11b (`step_required`, spec §4b): when a step policy is loaded and the request names a
/// `command`, the token's device (`sub`) has done every step the policy requires for that command,
/// for the request's object, or, without one, for every object of the token's `aud`. The detail
/// names the first step not done, in the policy's order: the next one the device must do. A bare
/// token, or a request without `command`, is not checked for steps.
struct SecurityStepsCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard input.state.stepsActive, let command = input.context.command else { return }
        let steps = input.state.steps
        guard let requirement = steps.requirement(command: command) else { return }
        token.withBytes(token.subject) { device in
            let progress = steps.progress(requirement, device: device)
            func report(_ step: String, _ object: UnsafeBufferPointer<UInt8>) {
                failures.add(
                    .stepRequired,
                    "command \"\(string(command))\" needs step \"\(step)\" of device \"\(string(device))\" for object \"\(string(object))\""
                )
            }
            if let object = input.context.object {
                if let step = steps.missingStep(requirement, progress, device: device, object: object) {
                    report(step, object)
                }
                return
            }
            for index in 0..<Int(token.audience.count) {
                let reported = token.withBytes(token.item(token.audience, index)) { object in
                    guard let step = steps.missingStep(requirement, progress, device: device, object: object) else {
                        return false
                    }
                    report(step, object)
                    return true
                }
                if reported { return }
            }
        }
    }

    private func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
