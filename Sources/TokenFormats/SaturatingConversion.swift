extension FixedWidthInteger {
    /// `value` rounded toward zero and clamped into this type's range (NaN: zero): a conversion
    /// of a Double that cannot trap, for counts and rates that are not times (a time is checked
    /// with TokenVerifier's `NumericDate.isRepresentable` where it is read).
    @inlinable
    package init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value <= Double(Self.min) {
            self = Self.min
        } else if value >= Double(Self.max) {
            // Double(Self.max) rounds up to 2^(bits) for 64-bit types: at or above it is too large.
            self = Self.max
        } else {
            self = Self(value)
        }
    }
}
