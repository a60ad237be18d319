/// Powers of ten that a `Double` holds exactly: 10^0 … 10^22 (5^22 < 2^53), the table behind
/// Clinger's fast path for reading decimals (Clinger 1990, "How to read floating point numbers
/// accurately"): a mantissa below 2^53 divided or multiplied by one of these rounds correctly.
/// Public, as `DecimalNumber` is, for its inlined `parse`.
public enum ExactPowerOfTen {
    /// The largest exponent whose power is exact.
    public static let maximumExponent = 22

    /// 10^`k` for `k` in 0…22 (22 for anything larger). A switch of literals rather than a
    /// global array, so the hot path has no lazy-initialisation check, retain or bounds check.
    @inlinable @inline(__always)
    public static func value(_ k: Int) -> Double {
        switch k {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }
}
