import Foundation
import MusicUnderstanding

/// A temporary folder for one test, removed when the test lets go of it (shared by the batch,
/// catalog and index tests).
final class ScratchFolder {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func copy(_ fixture: String, to relative: String) throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent(fixture), to: target)
    }

    func write(_ text: String, to relative: String) throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
    }

    /// Every file (not folder) below `relative`, hidden ones included; empty when it does not exist.
    func files(under relative: String) throws -> [String] {
        let dir = path(relative)
        guard FileManager.default.fileExists(atPath: dir) else { return [] }
        return (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    /// Every file below `relative` with its bytes.
    func contents(of relative: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try files(under: relative) { result[name] = try Data(contentsOf: URL(fileURLWithPath: path(relative) + "/" + name)) }
        return result
    }
}

/// A count of events that tests wait on instead of sleeping: `increment()` from any thread,
/// `wait(atLeast:)` resumes once the count has reached `n` (at once if it already has). No
/// deadline: a test that waits for an event that never comes hangs, it does not fail a timer.
final class EventCounter: Sendable {
    private let state = Locked<(count: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))

    /// Counts one event and resumes the waiters it satisfies.
    func increment() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.count += 1
            let count = s.count
            let done = s.waiters.filter { $0.0 <= count }.map(\.1)
            s.waiters.removeAll { $0.0 <= count }
            return done
        }
        ready.forEach { $0.resume() }
    }

    /// The events counted so far.
    var count: Int { state.withLock { $0.count } }

    /// Returns once at least `n` events have been counted.
    func wait(atLeast n: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s in
                if s.count >= n { return true }
                s.waiters.append((n, c))
                return false
            }
            if now { c.resume() }
        }
    }

    /// Polls `condition` (every 5 ms, no deadline) for state that offers no event to wait on.
    static func poll(_ condition: () -> Bool) async {
        while !condition() { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
