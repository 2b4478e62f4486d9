#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// atan2(y: dx, x: dy) in degrees: a bearing from a displacement (east, north).
@inlinable
public func atan2Degrees(_ dx: Double, _ dy: Double) -> Double { atan2(dx, dy) * 180 / Double.pi }

/// Math functions for the core without Foundation.
public enum RSMath {
    @inlinable public static func exp(_ x: Double) -> Double { Glibc.exp(x) }
    @inlinable public static func log(_ x: Double) -> Double { Glibc.log(x) }
    @inlinable public static func sin(_ x: Double) -> Double { Glibc.sin(x) }
    @inlinable public static func cos(_ x: Double) -> Double { Glibc.cos(x) }
    @inlinable public static func tan(_ x: Double) -> Double { Glibc.tan(x) }
    @inlinable public static func asin(_ x: Double) -> Double { Glibc.asin(x) }
    @inlinable public static func acos(_ x: Double) -> Double { Glibc.acos(x) }
    @inlinable public static func atan(_ x: Double) -> Double { Glibc.atan(x) }
    @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }
    @inlinable public static func pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
    @inlinable public static func floor(_ x: Double) -> Double { Glibc.floor(x) }
    @inlinable public static func hypot(_ x: Double, _ y: Double) -> Double { Glibc.hypot(x, y) }

    /// The median of `values` (sorted in place; the mean of the two middle ones for an even count), nil when empty.
    public static func median(_ values: inout [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        values.sort()
        let m = values.count / 2
        return values.count % 2 == 1 ? values[m] : 0.5 * (values[m - 1] + values[m])
    }
}
