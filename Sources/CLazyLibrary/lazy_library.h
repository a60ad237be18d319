// A C library opened on first use instead of linked, for the system-library shims (CDBus,
// CHarfBuzz, CFreeType): a library linked into `geo` is loaded, relocated and initialised, with
// every library it needs, by each command at start-up, whether or not the command calls it.
// Not a target: the shims include it by relative path.
#ifndef LOCATIONKIT_LAZY_LIBRARY_H
#define LOCATIONKIT_LAZY_LIBRARY_H
#include <dlfcn.h>
#include <stddef.h>

#define LAZY_LIBRARY_FIELD(name) __typeof__(name) *_Nonnull name;
#define LAZY_LIBRARY_RESOLVE(name) \
    if ((library->name = (__typeof__(name) *)dlsym(handle, #name)) == NULL) return dlerror();

/// Declares `Type`, a table of the functions `FUNCTIONS(X)` lists (`X(name) X(name) …`), each
/// field typed by the function's prototype in the library's own header (so a wrong signature
/// cannot compile), and `open(Type *)`, which opens the library by its soname `SONAME` and fills
/// the table: it returns NULL on success, else the dynamic loader's message.
#define LAZY_LIBRARY(Type, open, SONAME, FUNCTIONS) \
    typedef struct Type { FUNCTIONS(LAZY_LIBRARY_FIELD) } Type; \
    static inline const char *_Nullable open(Type *_Nonnull library) { \
        void *handle = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL); \
        if (handle == NULL) return dlerror(); \
        FUNCTIONS(LAZY_LIBRARY_RESOLVE) \
        return NULL; \
    }

#endif
