#ifndef CADENZA_CSQLITE_SHIM_H
#define CADENZA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_bind_text with SQLITE_TRANSIENT (SQLite copies the text), which Swift cannot import as a
/// macro. `bytes` is the UTF-8 length: a text holding NUL characters is stored whole.
static inline int cadenza_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}
#endif
