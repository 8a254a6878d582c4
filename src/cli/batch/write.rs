//! Writing files safely: temporary files named so a later run knows them
//! (`.NAME.relink-XXXXXX`) and removes those a killed run left, removed
//! too when this run is stopped by a signal (see [`guard`]), atomic
//! renames, the source's permissions and owner kept, advisory locks so two
//! runs over one tree never interleave, and targets that are links or
//! device nodes never replaced by regular files.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// What comes between a file's name and the random part in the names of
/// relink's temporary files.
const TEMP_MARK: &str = ".relink-";
/// How many random characters end a temporary file's name.
const TEMP_RANDOM: usize = 6;

/// Whether a file name is one of relink's temporary files:
/// `.NAME.relink-XXXXXX`.
pub fn is_temporary_name(name: &str) -> bool {
    let Some(at) = name.rfind(TEMP_MARK) else {
        return false;
    };
    let random = &name[at + TEMP_MARK.len()..];
    name.starts_with('.')
        && at > 1
        && random.len() == TEMP_RANDOM
        && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The directory a file is in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The directories this process writes temporary files in, each with the
/// shared lock it holds on it for the rest of the process.
fn entered() -> &'static Mutex<HashMap<PathBuf, Option<File>>> {
    static ENTERED: OnceLock<Mutex<HashMap<PathBuf, Option<File>>>> = OnceLock::new();
    ENTERED.get_or_init(Default::default)
}

/// Prepares to write temporary files in `dir`, once per process: removes
/// the temporary files a killed run left there, then holds a shared lock on
/// the directory. A run that finds the directory locked by another run
/// leaves its temporary files alone (they may be in use).
pub fn enter_dir(dir: &Path) {
    let Ok(mut map) = entered().lock() else {
        return;
    };
    if map.contains_key(dir) {
        return;
    }
    let handle = File::open(dir).ok();
    if let Some(handle) = &handle {
        if handle.try_lock().is_ok() {
            sweep(dir);
        }
        let _ = handle.lock_shared();
    }
    map.insert(dir.to_path_buf(), handle);
}

/// The user this process runs as, where the system says.
fn own_uid() -> Option<u32> {
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// Removes relink's temporary files in `dir` that belong to this user.
fn sweep(dir: &Path) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    let uid = own_uid();
    for entry in list.flatten() {
        if !is_temporary_name(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if (meta.is_file() || meta.file_type().is_symlink()) && uid.is_none_or(|u| u == meta.uid())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The name prefix of temporary files beside `path`: `.NAME.relink-`.
fn temp_prefix(path: &Path) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(TEMP_MARK);
    prefix
}

/// A temporary file of this run, registered with [`guard`] so that a
/// signal that stops the run removes it: a [`tempfile::NamedTempFile`]
/// (which it derefs to), removed when dropped, or put in place by
/// [`finish`].
pub struct Temporary {
    file: tempfile::NamedTempFile,
    _registered: guard::Registered,
}

impl std::ops::Deref for Temporary {
    type Target = tempfile::NamedTempFile;
    fn deref(&self) -> &Self::Target {
        &self.file
    }
}

impl std::ops::DerefMut for Temporary {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.file
    }
}

impl Write for Temporary {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.file.write_vectored(bufs)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A temporary file in the directory of `path`, to be renamed over it.
/// Created with mode 0666 less the umask, like any new file. An error names
/// `path`, never the temporary file (a name the user never gave).
pub fn temp_file_beside(path: &Path) -> io::Result<Temporary> {
    use std::os::unix::fs::PermissionsExt;
    let (file, registered) = make_temporary(path, |dir, name| {
        tempfile::Builder::new()
            .prefix(name)
            .rand_bytes(0)
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
    })
    .map_err(|err| cannot_write(path, &err))?;
    Ok(Temporary {
        file,
        _registered: registered,
    })
}

/// Six random letters and digits, for a temporary file's name.
fn random_part() -> String {
    use std::hash::{BuildHasher, Hasher};
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    // Each RandomState has keys of its own, drawn from the system's
    // randomness once per thread and stepped on for each.
    let mut n = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    (0..TEMP_RANDOM)
        .map(|_| {
            let c = CHARS[(n % CHARS.len() as u64) as usize];
            n /= CHARS.len() as u64;
            char::from(c)
        })
        .collect()
}

/// Makes a temporary file (or link) beside `path` by `make`, given the
/// directory and a fresh name, which fails if the name exists. The name is
/// registered with [`guard`] before the file exists, so that no moment
/// passes with the file there and unknown to the signal handler.
fn make_temporary<T>(
    path: &Path,
    make: impl Fn(&Path, &std::ffi::OsStr) -> io::Result<T>,
) -> io::Result<(T, guard::Registered)> {
    let dir = parent_of(path);
    enter_dir(dir);
    let absolute = std::path::absolute(dir)?;
    for _ in 0..100 {
        let mut name = temp_prefix(path);
        name.push(random_part());
        let registered = guard::Registered::new(&absolute.join(&name));
        match make(dir, &name) {
            Ok(made) => {
                registered.created();
                return Ok((made, registered));
            }
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "too many temporary files",
    ))
}

/// An error writing `path`, in words that name it (an error of the
/// tempfile crate names its temporary file instead).
fn cannot_write(path: &Path, err: &io::Error) -> io::Error {
    let dir = parent_of(path);
    let reason = if err.kind() == io::ErrorKind::NotFound && !dir.exists() {
        format!("no such directory: {}", dir.display())
    } else {
        err.kind().to_string()
    };
    io::Error::new(
        err.kind(),
        format!("cannot write {}: {reason}", path.display()),
    )
}

/// Where the file `-o` names is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file (or none yet): replaced atomically.
    Replace(PathBuf),
    /// A character device (`/dev/null`, a terminal) or a FIFO, links
    /// followed: written into, as a shell's `>` does; it is never replaced.
    Into(PathBuf),
}

/// Where a write to `path`, named by `-o`, lands: see [`Target`] and
/// [`resolve_target`] (a directory, a block device, a socket or a dangling
/// link is refused).
pub fn output_target(path: &Path) -> io::Result<Target> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(meta) = std::fs::metadata(path) {
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(Target::Into(path.to_path_buf()));
        }
    }
    resolve_target(path).map(Target::Replace)
}

/// Opens a [`Target::Into`] for writing: neither created nor truncated.
pub fn open_into(path: &Path) -> io::Result<File> {
    File::options()
        .write(true)
        .open(path)
        .map_err(|err| cannot_write(path, &err))
}

/// Gives the temporary file the permissions (and, where the process may,
/// the owner) of `like`.
fn take_mode(file: &File, like: &Metadata) -> io::Result<()> {
    // A new file most often has both already: it is then left as it is,
    // since each change is a write to the file system's journal.
    let made = file.metadata()?;
    if (made.uid(), made.gid()) != (like.uid(), like.gid()) {
        // Changing the owner is allowed to fail (only root may give files
        // away).
        let _ = std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid()));
    }
    if made.permissions() == like.permissions() {
        return Ok(());
    }
    file.set_permissions(like.permissions())
}

/// Where a write to `path` lands: `path` itself if nothing is there or a
/// regular file is; the file a symbolic link leads to if it is a regular
/// file; anything else is refused, so a link, a device or a directory is
/// never replaced by a regular file.
pub fn resolve_target(path: &Path) -> io::Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(err) => return Err(err),
    };
    if meta.is_file() {
        return Ok(path.to_path_buf());
    }
    if meta.file_type().is_symlink() {
        return match std::fs::metadata(path) {
            Ok(target) if target.is_file() => std::fs::canonicalize(path),
            Ok(_) => Err(refusal(
                path,
                "a symbolic link to something not a regular file",
            )),
            Err(_) => Err(refusal(path, "a symbolic link to nothing")),
        };
    }
    let what = if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(refusal(path, what))
}

fn refusal(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: {what}: not replaced", path.display()),
    )
}

/// How [`finish`] puts a temporary file in place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Over whatever file is there.
    Over,
    /// Only where no file is (a renamed Maildir message never overwrites
    /// another).
    Never,
}

/// Whether [`finish`] flushes a file to disk before it renames it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Flushed first: a crash leaves the old file or the new one, never an
    /// empty one. What an in-place rewrite (and a backup) needs.
    Flushed,
    /// Left to the system: a copy under `-o`, whose source is untouched,
    /// needs no flush per file (the cost was a quarter of the run).
    Lazy,
}

/// Flushes a temporary file to disk (as `durability` says), gives it the
/// mode of `like` (else of the file it replaces, if any), and renames it to
/// `path`.
pub fn finish(
    temp: Temporary,
    path: &Path,
    like: Option<&Metadata>,
    (replace, durability): (Replace, Durability),
) -> io::Result<()> {
    if durability == Durability::Flushed {
        temp.as_file().sync_all()?;
    }
    // The file replaced is looked at only when no mode is given.
    let existing = match like {
        Some(_) => None,
        None => std::fs::metadata(path).ok(),
    };
    if let Some(meta) = like.or(existing.as_ref()) {
        take_mode(temp.as_file(), meta)?;
    }
    // Renamed first, then no more removed by a signal: a signal between
    // the two removes a name that is no longer there.
    let Temporary {
        file,
        _registered: registered,
    } = temp;
    let result = match replace {
        Replace::Over => file.persist(path),
        Replace::Never => file.persist_noclobber(path),
    };
    drop(registered);
    result.map(|_| ()).map_err(|e| {
        if e.error.kind() == io::ErrorKind::AlreadyExists {
            io::Error::new(
                e.error.kind(),
                format!("{}: already exists: not overwritten", path.display()),
            )
        } else {
            e.error
        }
    })
}

/// Copies the file `from` to `to` atomically, with its mode.
pub fn copy_file(from: &Path, to: &Path, durability: Durability) -> io::Result<()> {
    copy_into(from, to, (Replace::Over, durability))
}

fn copy_into(from: &Path, to: &Path, how: (Replace, Durability)) -> io::Result<()> {
    let mut source =
        File::open(from).map_err(|e| io::Error::new(e.kind(), format!("cannot read: {e}")))?;
    let meta = source.metadata()?;
    let to = resolve_target(to)?;
    let mut temp = temp_file_beside(&to)?;
    io::copy(&mut source, temp.as_file_mut())?;
    finish(temp, &to, Some(&meta), how)
}

/// Makes `to` a symbolic link with the same target as the link `from`,
/// replacing an older link or file there.
pub fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    let target = std::fs::read_link(from)?;
    if let Ok(meta) = std::fs::symlink_metadata(to)
        && !(meta.is_file() || meta.file_type().is_symlink())
    {
        return Err(refusal(to, "not a regular file or link"));
    }
    let (made, _registered) = make_temporary(to, |dir, name| {
        tempfile::Builder::new()
            .prefix(name)
            .rand_bytes(0)
            .make_in(dir, |p| std::os::unix::fs::symlink(&target, p))
    })?;
    made.persist(to).map(|_| ()).map_err(|e| e.error)
}

/// What [`keep_backup`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backup {
    /// The original is now the backup.
    Made,
    /// A backup was there already (an earlier run's): it is kept, and the
    /// content being replaced has none.
    Kept,
}

/// Keeps the original of `path` as `path` + `suffix`: a hard link where the
/// file system allows, else a copy, made under a temporary name and renamed,
/// so a backup is never half-written. An existing backup is never replaced:
/// it holds the oldest original (a second run rewrites what the first one
/// already rewrote, and only links differ between the two).
pub fn keep_backup(path: &Path, suffix: &str) -> io::Result<Backup> {
    let mut backup = path.as_os_str().to_owned();
    backup.push(suffix);
    let backup = PathBuf::from(backup);
    match std::fs::symlink_metadata(&backup) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
        // Already the original (a run stopped after making it) or an
        // earlier original: either way it stays.
        Ok(b) => {
            let same =
                std::fs::metadata(path).is_ok_and(|a| (a.dev(), a.ino()) == (b.dev(), b.ino()));
            return Ok(if same { Backup::Made } else { Backup::Kept });
        }
    }
    let made = match make_temporary(&backup, |dir, name| {
        tempfile::Builder::new()
            .prefix(name)
            .rand_bytes(0)
            .make_in(dir, |p| std::fs::hard_link(path, p))
    }) {
        Ok((made, _registered)) => made
            .persist_noclobber(&backup)
            .map(|_| ())
            .map_err(|e| e.error),
        Err(_) => copy_into(path, &backup, (Replace::Never, Durability::Flushed)),
    };
    match made {
        Ok(()) => Ok(Backup::Made),
        // Another run made it meanwhile, from the same original.
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(Backup::Kept),
        Err(err) => Err(err),
    }
}

/// Opens `path` for an in-place rewrite, holding an advisory lock on it:
/// another run waits, then finds the rewritten file (the lock is taken
/// again if the name was renamed over meanwhile).
pub fn open_locked(path: &Path) -> io::Result<(File, Metadata)> {
    for _ in 0..100 {
        let file = File::open(path)?;
        // A file system without locks (some network ones) still gets an
        // atomic rewrite, only without the guard against a second run.
        let _ = file.lock();
        let meta = file.metadata()?;
        let now = std::fs::metadata(path)?;
        if (now.dev(), now.ino()) == (meta.dev(), meta.ino()) {
            return Ok((file, meta));
        }
    }
    Err(io::Error::other("keeps changing while being read"))
}

/// Temporary files removed when a signal stops the run: SIGINT, SIGTERM,
/// SIGHUP, SIGQUIT, SIGXFSZ, and SIGABRT (which is how the process ends
/// when memory runs out). Each temporary file's name is kept, while the
/// file may exist, in a fixed table that the signal handler reads without
/// allocating or locking; the handler unlinks each (unlink is
/// async-signal-safe, POSIX.1-2017 section 2.4.3), then the signal is
/// raised again with its default action, so the run ends as it would
/// have. A signal the process ignores (`nohup`) stays ignored. SIGKILL
/// cannot be caught: the next run in that directory removes what it
/// left (see [`enter_dir`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub mod guard {
    use std::cell::UnsafeCell;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

    /// How many temporary files can be registered at once (each thread
    /// holds one or two); more are left to the next run's sweep.
    const SLOTS: usize = 128;
    /// The longest name kept, its final NUL included.
    const NAME_BYTES: usize = 1024;

    const EMPTY: u8 = 0;
    const WRITING: u8 = 1;
    const LIVE: u8 = 2;
    /// Taken by the signal handler: never written again.
    const TAKEN: u8 = 3;

    struct Slot {
        state: AtomicU8,
        name: UnsafeCell<[u8; NAME_BYTES]>,
    }

    // SAFETY: `name` is written only by the thread that moved `state`
    // from EMPTY to WRITING, and read only by the handler that moved it
    // from LIVE to TAKEN, after the writer's release store of LIVE.
    unsafe impl Sync for Slot {}

    static TABLE: [Slot; SLOTS] = [const {
        Slot {
            state: AtomicU8::new(EMPTY),
            name: UnsafeCell::new([0; NAME_BYTES]),
        }
    }; SLOTS];

    const SIGNALS: [libc::c_int; 6] = [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGXFSZ,
        libc::SIGABRT,
    ];

    /// Set by the signal handler before it removes the files: a file made
    /// after it looked is removed by its maker.
    static DYING: AtomicBool = AtomicBool::new(false);

    /// A registered temporary file's slot; dropped, the name is no longer
    /// removed by a signal.
    pub struct Registered(Option<usize>);

    impl Registered {
        /// Registers `path` (installing the handlers, once per process).
        pub fn new(path: &Path) -> Self {
            static INSTALL: Once = Once::new();
            INSTALL.call_once(install);
            let bytes = path.as_os_str().as_bytes();
            if bytes.len() >= NAME_BYTES || bytes.contains(&0) {
                return Registered(None);
            }
            for (i, slot) in TABLE.iter().enumerate() {
                if slot
                    .state
                    .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    // SAFETY: this thread alone holds the slot (WRITING).
                    let name = unsafe { &mut *slot.name.get() };
                    name[..bytes.len()].copy_from_slice(bytes);
                    name[bytes.len()] = 0;
                    slot.state.store(LIVE, Ordering::Release);
                    return Registered(Some(i));
                }
            }
            Registered(None)
        }

        /// Says the file now exists: if a signal's handler ran meanwhile
        /// (and may have looked before the file was there), it is removed
        /// here.
        pub fn created(&self) {
            if let Some(i) = self.0
                && DYING.load(Ordering::SeqCst)
            {
                // SAFETY: the slot's name is this registration's, written
                // before and NUL-terminated.
                unsafe { libc::unlink(TABLE[i].name.get().cast::<libc::c_char>()) };
            }
        }
    }

    impl Drop for Registered {
        fn drop(&mut self) {
            if let Some(i) = self.0 {
                // Taken by the handler meanwhile: the process is ending.
                let _ = TABLE[i].state.compare_exchange(
                    LIVE,
                    EMPTY,
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                );
            }
        }
    }

    /// Removes every registered temporary file, then raises `signal` again
    /// with its default action. Only async-signal-safe calls.
    extern "C" fn on_signal(signal: libc::c_int) {
        DYING.store(true, Ordering::SeqCst);
        for slot in &TABLE {
            if slot
                .state
                .compare_exchange(LIVE, TAKEN, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                // SAFETY: the slot holds a NUL-terminated name, no more
                // written (TAKEN).
                unsafe { libc::unlink(slot.name.get().cast::<libc::c_char>()) };
            }
        }
        // SAFETY: signal and raise are async-signal-safe; the default
        // action ends the process as the signal would have.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    fn install() {
        for signal in SIGNALS {
            // SAFETY: sigaction with a zeroed, then filled, struct; the
            // handler is installed only where the action is the default
            // one (an ignored signal stays ignored).
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                for other in SIGNALS {
                    libc::sigaddset(&mut action.sa_mask, other);
                }
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    }
}

/// Elsewhere, temporary files a signal leaves are removed by the next run
/// in their directory (see [`enter_dir`]).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub mod guard {
    use std::path::Path;

    /// A temporary file's registration: nothing to do here.
    pub struct Registered;

    impl Registered {
        pub fn new(_path: &Path) -> Self {
            Registered
        }

        pub fn created(&self) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_known_again() {
        assert!(is_temporary_name(".page.html.relink-a1B2c3"));
        assert!(!is_temporary_name("page.html.relink-a1B2c3"));
        assert!(!is_temporary_name(".page.html.relink-a1B2c"));
        assert!(!is_temporary_name(".relink-a1B2c3"));
        assert!(!is_temporary_name(".page.html"));
    }
}
