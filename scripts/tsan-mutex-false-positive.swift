// A correct program that ThreadSanitizer on Linux (Swift 6.3.1) reports as a "Swift access race":
// six threads append to one array, every access inside `Synchronization.Mutex.withLock`.
// Under contention the lock is handed over through the kernel (futex) inside the uninstrumented
// Synchronization library, so TSan sees no acquire and flags the protected accesses.
// Every report of `scripts/sanitizers.sh thread` has this shape (see Reports/sanitizers.md).
//   swiftc -sanitize=thread -g scripts/tsan-mutex-false-positive.swift -o /tmp/m && /tmp/m
// prints 18000 (no update lost) and, usually, one "WARNING: ThreadSanitizer: Swift access race".
import Foundation
import Synchronization

final class Box: Sendable { let state = Mutex<[Int]>([]) }
let box = Box()
let threads = 6
let done = DispatchSemaphore(value: 0)
for t in 0..<threads {
    Thread.detachNewThread {
        for i in 0..<3000 {
            box.state.withLock { s in
                s.append(t * 10000 + i)
                var x = 0
                for k in 0..<200 { x &+= k * s.count }  // a long critical section: contention
                if x == 42 { s.append(x) }
            }
        }
        done.signal()
    }
}
for _ in 0..<threads { done.wait() }
print(box.state.withLock { $0.count })
