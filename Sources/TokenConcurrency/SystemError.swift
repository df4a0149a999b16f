#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The text of an `errno` value (by default the current one), as `strerror(3)` gives it: the
/// one way the project words a failed system call ("No such file or directory").
package func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
