// ThreadSanitizer and Synchronization.Mutex on Linux (issue 16, docs/reliability.md): two threads append to and pop
// from one array inside Mutex.withLock (the pattern of Router.spaces), or with an argument inside a pthread_mutex_t.
//   swiftc -sanitize=thread scripts/tsan-mutex-demo.swift -o /tmp/tsan-mutex-demo
//   /tmp/tsan-mutex-demo          -> "Swift access race" reports, and the count is right (20000) every run
//   /tmp/tsan-mutex-demo pthread  -> no report, same count

import Synchronization
import Glibc

final class Box: @unchecked Sendable {
    let m = Mutex<[Int]>([])
    var p = pthread_mutex_t()
    var a: [Int] = []
    init() { pthread_mutex_init(&p, nil) }
}
let box = Box()
let usePthread = CommandLine.arguments.count > 1
let n = 20000
func work() {
    for i in 0..<n {
        if usePthread {
            pthread_mutex_lock(&box.p); box.a.append(i); if i % 2 == 0 { _ = box.a.popLast() }; pthread_mutex_unlock(&box.p)
        } else {
            box.m.withLock { $0.append(i); if i % 2 == 0 { _ = $0.popLast() } }
        }
    }
}
var threads: [pthread_t] = []
for _ in 0..<2 {
    var t = pthread_t()
    pthread_create(&t, nil, { _ in work(); return nil }, nil)
    threads.append(t)
}
for t in threads { pthread_join(t, nil) }
print(usePthread ? "pthread" : "Mutex", usePthread ? box.a.count : box.m.withLock { $0.count })
