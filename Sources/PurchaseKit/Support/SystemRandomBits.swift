#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Random bits from the system's cryptographic source, for order ids and
/// order tokens.
///
/// On Linux, `SystemRandomNumberGenerator` makes one `getrandom` system call
/// for every 64-bit value, so a purchase (an order id and a token, two values
/// each) cost four calls into the kernel. Here one call fills 32 values, and
/// the values are handed out in turn. On Apple platforms the system generator
/// never leaves the process, so values are taken from it directly.
///
/// Copies share one buffer behind one lock, so two copies never hand out the
/// same value. A value is handed out once and dropped from the buffer. (A
/// process that forks would leave its child the values still buffered; an
/// app does not fork, and the engine refuses a token an order already holds.)
struct SystemRandomBits: RandomNumberGenerator, Sendable {
    private static let batch = 32

    private struct Buffer: Sendable {
        var values: [UInt64] = []
        var next = 0
    }

    private let buffer = Locked(Buffer())

    init() {}

    mutating func next() -> UInt64 {
        #if canImport(Glibc) || canImport(Musl)
        buffer.withLock { buffer in
            if buffer.next == buffer.values.count {
                buffer.values = Self.fresh()
                buffer.next = 0
            }
            let value = buffer.values[buffer.next]
            buffer.values[buffer.next] = 0
            buffer.next += 1
            return value
        }
        #else
        var system = SystemRandomNumberGenerator()
        return system.next()
        #endif
    }

    #if canImport(Glibc) || canImport(Musl)
    private typealias GetRandom = @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int

    /// The C library's `getrandom` (glibc 2.25 and later, musl 1.1.20 and
    /// later), looked up once: the platform module does not import its
    /// header. Nil where the C library has none.
    private static let getRandom: GetRandom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "getrandom") else { return nil }
        return unsafeBitCast(symbol, to: GetRandom.self)
    }()

    /// A batch of values from one `getrandom` call (the kernel returns up to
    /// 256 bytes in one piece); whatever it did not fill, after an
    /// interruption, an error or without `getrandom`, comes from the system
    /// generator.
    private static func fresh() -> [UInt64] {
        var values = [UInt64](repeating: 0, count: batch)
        let filled = values.withUnsafeMutableBytes { bytes -> Int in
            guard let getRandom else { return 0 }
            return max(0, getRandom(bytes.baseAddress, bytes.count, 0))
        }
        var system = SystemRandomNumberGenerator()
        for index in (filled / MemoryLayout<UInt64>.size)..<batch {
            values[index] = system.next()
        }
        return values
    }
    #endif
}
