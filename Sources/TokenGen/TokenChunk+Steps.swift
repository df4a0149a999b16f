extension TokenChunk {
    /// Appends the `device-steps.jsonl` line of a device–object pair with `done` steps done.
    mutating func appendDeviceSteps(device: Int, object: Int, done: Int) {
        deviceSteps.append(ascii: "{\"sub\":\"phone-")
        deviceSteps.append(decimal: device)
        deviceSteps.append(ascii: "\",\"aud\":\"car-")
        deviceSteps.append(decimal: object)
        deviceSteps.append(ascii: "\",\"done\":[")
        for index in 0..<done {
            if index > 0 { deviceSteps.append(UInt8(ascii: ",")) }
            deviceSteps.append(UInt8(ascii: "\""))
            deviceSteps.append(ascii: TokenSetSpec.stepOrder[index])
            deviceSteps.append(UInt8(ascii: "\""))
        }
        deviceSteps.append(ascii: "]}\n")
    }
}
