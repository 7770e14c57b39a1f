/**
 * Screenshot blobs in IndexedDB (chrome.storage would have to hold them as base64 text).
 * One object store, keyed by the step's client id. The service worker writes; the review
 * page reads the same database for thumbnails (same extension origin).
 */

const DB_NAME = "trailmark";
const DB_VERSION = 1;
const STORE = "screenshots";

export function openScreens(factory = globalThis.indexedDB) {
  let database = null;

  function connect() {
    database ??= new Promise((resolve, reject) => {
      const request = factory.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => {
        const db = request.result;
        db.onversionchange = () => {
          db.close();
          database = null;
        };
        db.onclose = () => {
          database = null;
        };
        resolve(db);
      };
      request.onerror = () => {
        database = null;
        reject(request.error);
      };
    });
    return database;
  }

  async function run(mode, operation) {
    const db = await connect();
    return new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = operation(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error ?? new Error("IndexedDB transaction aborted"));
    });
  }

  return {
    put: (id, blob) => run("readwrite", (store) => store.put(blob, id)),
    get: (id) => run("readonly", (store) => store.get(id)),
    delete: (id) => run("readwrite", (store) => store.delete(id)),
  };
}

/** A `data:image/…;base64,…` URL (what captureVisibleTab returns) as a Blob. */
export function dataUrlToBlob(dataUrl) {
  const comma = dataUrl.indexOf(",");
  const header = dataUrl.slice(5, comma);
  const type = header.split(";")[0] || "application/octet-stream";
  const binary = atob(dataUrl.slice(comma + 1));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return new Blob([bytes], { type });
}
