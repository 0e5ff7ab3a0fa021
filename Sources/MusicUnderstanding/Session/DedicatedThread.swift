import Foundation

/// Runs blocking work (FFmpeg I/O, DSP) on a thread of its own instead of Swift's cooperative
/// pool, so that many analyses at once never starve the tasks that drive them.
enum DedicatedThread {
    /// Stack size of analysis threads: deep enough for FFmpeg's decoders.
    static let stackSize = 8 << 20

    /// Starts `body` on a new thread and returns at once.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { body() }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }
}
