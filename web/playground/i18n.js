// SPDX-License-Identifier: Apache-2.0 OR MIT
// The page's words in Vietnamese (the article's language) and English.
// Elements with data-i18n="key" show dict[lang][key]; code asks t(key, {name: value}).
// Terms follow the article: bucket, fingerprint, kick ("đá"), load, FPP.

export const dict = {
  vi: {
    title: "Sân chơi Cuckoo filter",
    subtitle:
      "Thư viện libcuckoofilter (C) biên dịch sang WebAssembly, chạy ngay trong trình duyệt: xem fingerprint, hai bucket và từng lần đá.",
    switchLang: "English",
    tabTable: "Bảng",
    tabExperiment: "Thí nghiệm của bài viết",
    tabFull: "Khi bảng đầy",
    shape: "Hình dạng bảng",
    buckets: "Số bucket",
    bucketSize: "Ô mỗi bucket",
    fingerprintBits: "Bit fingerprint",
    seed: "Seed",
    newTable: "Tạo bảng mới",
    key: "Khóa",
    keyPlaceholder: "gõ một khóa, ví dụ: táo",
    insert: "Chèn",
    lookup: "Tra cứu",
    delete: "Xóa",
    random: "Chèn 10 từ ngẫu nhiên",
    fingerprint: "Fingerprint",
    bucket1: "Bucket 1",
    bucket2: "Bucket 2",
    load: "Load",
    items: "Phần tử",
    slots: "Ô",
    fppNow: "FPP hiện tại",
    bitsPerItem: "Bit / phần tử",
    kicks: "Các lần đá của lần chèn cuối",
    noKicks: "Chưa có lần chèn nào.",
    directPlace: "Vào thẳng ô trống: không cần đá.",
    log: "Nhật ký",
    ansInserted: "Đã chèn {key}: fingerprint {fp} vào bucket {bucket}, ô {slot}{kicks}.",
    ansKicks: " sau {n} lần đá",
    ansFull: "Bảng đầy: không chèn được {key}. Không gì thay đổi, không mất phần tử nào.",
    ansFound: "{key}: có thể có (fingerprint {fp} nằm trong bucket {b1} hoặc {b2}).",
    ansNotFound: "{key}: chắc chắn không có.",
    ansDeleted: "Đã xóa một bản của {key}.",
    ansNotDeleted: "{key} không có trong bảng: không xóa gì.",
    move: "fingerprint {fp}: bucket {fb} ô {fs} → bucket {tb} ô {ts}",
    place: "fingerprint {fp} của khóa mới → bucket {tb} ô {ts}",
    expIntro:
      "Chạy lại thí nghiệm của bài viết bằng chính mã của `cuckoo report`: {buckets} bucket, {queries} truy vấn không phải phần tử, seed {seed}. Kéo thanh trượt để đổi số bit fingerprint, kích thước bucket và load; các biểu đồ vẽ lại.",
    run: "Chạy thí nghiệm",
    running: "Đang chạy: {phase}…",
    phaseFill: "chèn, tra cứu, xóa, đẩy tới khi đầy",
    phaseBuckets: "load tối đa theo kích thước bucket",
    phaseCompare: "Cuckoo và Bloom cùng bộ nhớ",
    done: "Xong: thí nghiệm trong {e} giây, cả so sánh với Bloom trong {s} giây.",
    failed: "Thất bại: {why}",
    sliderF: "Bit fingerprint f",
    sliderB: "Ô mỗi bucket b",
    sliderLoad: "Load mục tiêu",
    colQuantity: "Đại lượng",
    colOurs: "Thư viện này",
    colArticle: "Bài viết (Python)",
    rowItems: "Số phần tử chèn ở load mục tiêu",
    rowMemory: "Bộ nhớ (bảng bucket)",
    rowBits: "Bit / phần tử",
    rowFalseNeg: "Âm tính giả",
    rowFpp: "Tỉ lệ dương tính giả (FPP)",
    rowCi: "Khoảng tin cậy 95%",
    rowTheory: "Lý thuyết 1-(1-1/(2^f-1))^(2b·load)",
    rowBound: "Chặn trên 2b/2^f",
    rowKicks: "Số lần đá mỗi lần chèn (trung bình, p99, tối đa)",
    rowDelete: "Xóa 4 phần tử: tìm thấy trước / sau",
    rowFail: "Đẩy tới khi chèn thất bại: load",
    rowLost: "Phần tử bị mất lúc đó",
    rowMaxLoad: "Load tối đa theo b (1, 2, 4, 8)",
    chartFpp: "FPP theo số bit mỗi phần tử (cùng bộ nhớ)",
    chartKicks: "Số lần đá mỗi lần chèn theo load",
    chartMaxLoad: "Load tối đa theo kích thước bucket",
    axisBits: "bit / phần tử",
    axisFpp: "FPP (thang log)",
    axisLoad: "load (%)",
    axisKicks: "số lần đá",
    axisB: "ô mỗi bucket b",
    axisMaxLoad: "load tối đa (%)",
    sCuckoo: "cuckoo (đo)",
    sCuckooTheory: "cuckoo (lý thuyết)",
    sSemi: "bán sắp xếp (đo)",
    sSemiTheory: "bán sắp xếp (lý thuyết)",
    sBloom: "Bloom (đo)",
    sBloomTheory: "Bloom (lý thuyết)",
    sArticle: "bài viết: cuckoo / Bloom",
    sMean: "trung bình",
    sMax: "tối đa",
    reportText: "Bảng của `cuckoo report`, như dòng lệnh in ra (cột phải: số của bài viết)",
    fullIntro:
      "Cùng một dãy khóa, cùng một bảng nhỏ ({nb} bucket × {b} ô, fingerprint {f} bit), chèn tới khi một lần chèn thất bại. Bên trái: thư viện này. Bên phải: mã của bài viết (đá ngẫu nhiên, bỏ rơi fingerprint đang cầm khi hết 500 lần đá).",
    fill: "Chèn tới khi thất bại",
    oursTitle: "Thư viện này",
    articleTitle: "Mã của bài viết",
    accepted: "Đã nhận {n} khóa; khóa {key} bị từ chối.",
    lostNone: "Tra lại {n} khóa đã nhận: tìm thấy cả {n}. Không mất gì: lần chèn thất bại không thay đổi gì.",
    lostSome: "Tra lại {n} khóa đã nhận: mất {lost} ({keys}). Fingerprint bị đá ra cuối cùng đã bị bỏ rơi: âm tính giả.",
  },
  en: {
    title: "Cuckoo filter playground",
    subtitle:
      "The libcuckoofilter C library compiled to WebAssembly, running in your browser: watch fingerprints, the two buckets and every kick.",
    switchLang: "Tiếng Việt",
    tabTable: "Table",
    tabExperiment: "The article's experiment",
    tabFull: "When the table is full",
    shape: "Table shape",
    buckets: "Buckets",
    bucketSize: "Slots per bucket",
    fingerprintBits: "Fingerprint bits",
    seed: "Seed",
    newTable: "New table",
    key: "Key",
    keyPlaceholder: "type a key, e.g. apple",
    insert: "Insert",
    lookup: "Look up",
    delete: "Delete",
    random: "Insert 10 random words",
    fingerprint: "Fingerprint",
    bucket1: "Bucket 1",
    bucket2: "Bucket 2",
    load: "Load",
    items: "Items",
    slots: "Slots",
    fppNow: "FPP now",
    bitsPerItem: "Bits / item",
    kicks: "Kicks of the last insert",
    noKicks: "No insert yet.",
    directPlace: "Straight into a free slot: no kick needed.",
    log: "Log",
    ansInserted: "Inserted {key}: fingerprint {fp} into bucket {bucket}, slot {slot}{kicks}.",
    ansKicks: " after {n} kicks",
    ansFull: "The table is full: {key} was not inserted. Nothing changed, no item was lost.",
    ansFound: "{key}: maybe present (fingerprint {fp} is in bucket {b1} or {b2}).",
    ansNotFound: "{key}: certainly absent.",
    ansDeleted: "Deleted one copy of {key}.",
    ansNotDeleted: "{key} is not in the table: nothing deleted.",
    move: "fingerprint {fp}: bucket {fb} slot {fs} → bucket {tb} slot {ts}",
    place: "the new key's fingerprint {fp} → bucket {tb} slot {ts}",
    expIntro:
      "The article's experiment, rerun by the code of `cuckoo report` itself: {buckets} buckets, {queries} non-member queries, seed {seed}. Move the sliders to change the fingerprint bits, the bucket size and the load; the charts are redrawn.",
    run: "Run the experiment",
    running: "Running: {phase}…",
    phaseFill: "insert, look up, delete, fill until full",
    phaseBuckets: "maximum load by bucket size",
    phaseCompare: "cuckoo and Bloom at the same memory",
    done: "Done: the experiment in {e} s, with the comparison against Bloom in {s} s.",
    failed: "Failed: {why}",
    sliderF: "Fingerprint bits f",
    sliderB: "Slots per bucket b",
    sliderLoad: "Target load",
    colQuantity: "Quantity",
    colOurs: "This library",
    colArticle: "The article (Python)",
    rowItems: "Items inserted at the target load",
    rowMemory: "Memory (bucket table)",
    rowBits: "Bits per item",
    rowFalseNeg: "False negatives",
    rowFpp: "False-positive rate (FPP)",
    rowCi: "95% confidence interval",
    rowTheory: "Theory 1-(1-1/(2^f-1))^(2b·load)",
    rowBound: "Bound 2b/2^f",
    rowKicks: "Kicks per insert (mean, p99, max)",
    rowDelete: "Delete 4 items: found before / after",
    rowFail: "Fill until an insert fails: load",
    rowLost: "Items lost at that point",
    rowMaxLoad: "Maximum load by b (1, 2, 4, 8)",
    chartFpp: "FPP against bits per item (same memory)",
    chartKicks: "Kicks per insert against load",
    chartMaxLoad: "Maximum load by bucket size",
    axisBits: "bits per item",
    axisFpp: "FPP (log scale)",
    axisLoad: "load (%)",
    axisKicks: "kicks",
    axisB: "slots per bucket b",
    axisMaxLoad: "maximum load (%)",
    sCuckoo: "cuckoo (measured)",
    sCuckooTheory: "cuckoo (theory)",
    sSemi: "semi-sorted (measured)",
    sSemiTheory: "semi-sorted (theory)",
    sBloom: "Bloom (measured)",
    sBloomTheory: "Bloom (theory)",
    sArticle: "the article: cuckoo / Bloom",
    sMean: "mean",
    sMax: "max",
    reportText: "The table of `cuckoo report`, as the command prints it (right column: the article's figures)",
    fullIntro:
      "The same keys into the same small table ({nb} buckets × {b} slots, {f}-bit fingerprints), until an insert fails. Left: this library. Right: the article's code (a random walk that drops the fingerprint in hand after 500 kicks).",
    fill: "Insert until one fails",
    oursTitle: "This library",
    articleTitle: "The article's code",
    accepted: "Took {n} keys; key {key} was refused.",
    lostNone: "Looking up the {n} keys taken: all {n} found. Nothing lost: the failed insert changed nothing.",
    lostSome: "Looking up the {n} keys taken: {lost} lost ({keys}). The last fingerprint kicked out was dropped: a false negative.",
  },
};

let lang = "vi";
const listeners = [];

export function language() {
  return lang;
}

/** dict[lang][key] with {name} replaced by params.name. */
export function t(key, params = {}) {
  const s = dict[lang][key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in params ? String(params[k]) : `{${k}}`));
}

/** Shows every [data-i18n] element in lang, and tells the listeners. */
export function setLanguage(next) {
  lang = next;
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-placeholder]"))
    el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const fn of listeners) fn(lang);
}

export function onLanguage(fn) {
  listeners.push(fn);
}

/** A number as people read it in lang: 249.036 / 249,036; 12,63 / 12.63. */
export function num(x, digits) {
  const locale = lang === "vi" ? "vi-VN" : "en-US";
  const opts = digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return x.toLocaleString(locale, opts);
}

/** A probability as a percentage with 4 significant digits. */
export function pct(p) {
  const locale = lang === "vi" ? "vi-VN" : "en-US";
  return (100 * p).toLocaleString(locale, { maximumSignificantDigits: 4 }) + "%";
}
