// Rendering messages as Discord shows them: Markdown, mentions, timestamps, embeds, files, buttons.
// Everything is built as DOM nodes from text: nothing a message says is ever parsed as HTML.
"use strict";

const Render = (() => {
  const DISCORD_LINK = /^https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/channels\/(\d+)\/(\d+)(?:\/(\d+))?/;
  // Filled in by the app: names for mentions, and what to do when a link points into the sandbox.
  const context = {
    people: new Map(), // user id -> name
    roles: new Map(), // role id -> name
    channels: new Map(), // channel id -> name
    onJump: (_channelId, _messageId) => {},
    onComponent: (_message, _component, _values) => {},
    onDismiss: (_messageId) => {},
  };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // ---------------------------------------------------------------- time

  function pad(n) {
    return String(n).padStart(2, "0");
  }

  function clock(date) {
    return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  function sameDay(a, b) {
    return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  }

  function when(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return "";
    const today = new Date();
    const yesterday = new Date(today.getTime() - 86400000);
    if (sameDay(date, today)) return `Today at ${clock(date)}`;
    if (sameDay(date, yesterday)) return `Yesterday at ${clock(date)}`;
    return `${pad(date.getDate())}/${pad(date.getMonth() + 1)}/${date.getFullYear()} ${clock(date)}`;
  }

  function relative(date) {
    const seconds = Math.round((date.getTime() - Date.now()) / 1000);
    const units = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60]];
    const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
    for (const [unit, size] of units) {
      if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
    }
    return format.format(seconds, "second");
  }

  // <t:unix:style>, in the reader's own time zone, as Discord shows it.
  function timestamp(unix, style) {
    const date = new Date(Number(unix) * 1000);
    const options = {
      t: { timeStyle: "short" },
      T: { timeStyle: "medium" },
      d: { dateStyle: "short" },
      D: { dateStyle: "long" },
      f: { dateStyle: "long", timeStyle: "short" },
      F: { dateStyle: "full", timeStyle: "short" },
    };
    const text = style === "R" ? relative(date) : new Intl.DateTimeFormat(undefined, options[style || "f"] || options.f).format(date);
    const node = el("time", "timestamp-pill", text);
    node.dateTime = date.toISOString();
    node.title = date.toLocaleString();
    return node;
  }

  // ---------------------------------------------------------------- Markdown

  function safeUrl(raw) {
    try {
      const url = new URL(raw);
      return url.protocol === "http:" || url.protocol === "https:" ? url : null;
    } catch {
      return null;
    }
  }

  function link(raw, label) {
    const url = safeUrl(raw);
    if (!url) return document.createTextNode(label || raw);
    const jump = DISCORD_LINK.exec(url.href);
    const node = el("a", "link");
    if (jump) {
      node.href = "#";
      node.dataset.channel = jump[2];
      node.addEventListener("click", (event) => {
        event.preventDefault();
        context.onJump(jump[2], jump[3] || null);
      });
      if (!label) label = jump[3] ? `#${context.channels.get(jump[2]) || "channel"} › message` : `#${context.channels.get(jump[2]) || "channel"}`;
    } else {
      node.href = url.href;
      node.target = "_blank";
      node.rel = "noopener noreferrer";
    }
    if (label && typeof label !== "string") node.append(label);
    else node.textContent = label || raw;
    return node;
  }

  function mention(kind, id) {
    if (kind === "#") {
      const node = el("a", "mention", `#${context.channels.get(id) || "unknown-channel"}`);
      node.href = "#";
      node.addEventListener("click", (event) => {
        event.preventDefault();
        context.onJump(id, null);
      });
      return node;
    }
    if (kind === "@&") return el("span", "mention", `@${context.roles.get(id) || "unknown-role"}`);
    return el("span", "mention", `@${context.people.get(id) || "unknown-user"}`);
  }

  // Inline rules, tried in order at each position; the earliest match wins.
  const INLINE = [
    { re: /`([^`\n]+)`/y, make: (m) => el("code", "inline-code", m[1]) },
    { re: /<t:(-?\d+)(?::([tTdDfFR]))?>/y, make: (m) => timestamp(m[1], m[2]) },
    { re: /<(#|@&|@!?)(\d+)>/y, make: (m) => mention(m[1].startsWith("@") && m[1] !== "@&" ? "@" : m[1], m[2]) },
    { re: /\[([^\]\n]+)\]\(<?(https?:\/\/[^)\s>]+)>?\)/y, make: (m) => link(m[2], inline(m[1])) },
    { re: /<(https?:\/\/[^>\s]+)>/y, make: (m) => link(m[1]) },
    { re: /https?:\/\/[^\s<]+[^\s<.,:;"')\]]/y, make: (m) => link(m[0]) },
    { re: /\*\*\*([\s\S]+?)\*\*\*/y, make: (m) => wrap("strong", wrap("em", inline(m[1]))) },
    { re: /\*\*([\s\S]+?)\*\*/y, make: (m) => wrap("strong", inline(m[1])) },
    { re: /__([\s\S]+?)__/y, make: (m) => wrap("u", inline(m[1])) },
    { re: /\*([^*\s][\s\S]*?)\*/y, make: (m) => wrap("em", inline(m[1])) },
    { re: /\b_([^_\s][\s\S]*?)_\b/y, make: (m) => wrap("em", inline(m[1])) },
    { re: /~~([\s\S]+?)~~/y, make: (m) => wrap("s", inline(m[1])) },
    { re: /\|\|([\s\S]+?)\|\|/y, make: (m) => spoiler(inline(m[1])) },
    { re: /\\([\\`*_~|<>#\[\]()-])/y, make: (m) => document.createTextNode(m[1]) },
  ];
  const TRIGGERS = /[`<\[h*_~|\\]/g;

  function wrap(tag, child) {
    const node = el(tag);
    node.append(child);
    return node;
  }

  function spoiler(child) {
    const node = el("span", "spoiler");
    node.tabIndex = 0;
    node.title = "Spoiler: click to reveal";
    node.append(child);
    const reveal = () => node.classList.add("revealed");
    node.addEventListener("click", reveal);
    node.addEventListener("keydown", (event) => { if (event.key === "Enter") reveal(); });
    return node;
  }

  // 🔒 marks GM-only material: said in words beside it too, unless the words follow already (and for a
  // browser without an emoji font, the words carry the meaning alone).
  function plain(text) {
    const parts = text.split("\u{1F512}");
    if (parts.length === 1) return text;
    const out = document.createDocumentFragment();
    parts.forEach((part, index) => {
      if (index) {
        const mark = el("span", "gm-only", "\u{1F512}");
        mark.title = "GM only";
        if (!/^\s*(=\s*)?(hidden\s*\()?GM only/i.test(part.slice(0, 24))) mark.append(el("span", "gm-only-words", "GM only"));
        out.append(mark);
      }
      if (part) out.append(part);
    });
    return out;
  }

  function inline(text) {
    const out = document.createDocumentFragment();
    let plainFrom = 0;
    let i = 0;
    while (i < text.length) {
      TRIGGERS.lastIndex = i;
      const found = TRIGGERS.exec(text);
      if (!found) break;
      i = found.index;
      let matched = null;
      for (const rule of INLINE) {
        rule.re.lastIndex = i;
        const m = rule.re.exec(text);
        if (m) {
          matched = { m, rule };
          break;
        }
      }
      if (!matched) {
        i += 1;
        continue;
      }
      if (i > plainFrom) out.append(plain(text.slice(plainFrom, i)));
      out.append(matched.rule.make(matched.m));
      i += matched.m[0].length;
      plainFrom = i;
    }
    if (plainFrom < text.length) out.append(plain(text.slice(plainFrom)));
    return out;
  }

  function lines(text, target) {
    text.split("\n").forEach((line, index) => {
      if (index) target.append(el("br"));
      target.append(inline(line));
    });
  }

  // Block rules: code fences, quotes, headings, lists, subtext; the rest is paragraphs of lines.
  function markdown(text) {
    const root = el("div", "markdown");
    const source = text.replace(/\r\n/g, "\n").split("\n");
    let paragraph = [];
    const flush = () => {
      if (!paragraph.length) return;
      const node = el("div", "md-lines");
      lines(paragraph.join("\n"), node);
      root.append(node);
      paragraph = [];
    };
    for (let i = 0; i < source.length; i += 1) {
      const line = source[i];
      const fence = /^```(\w*)\s*$/.exec(line) || /^```(\w*)\s*(.*)$/.exec(line);
      if (fence && line.startsWith("```")) {
        flush();
        const body = [];
        let rest = line.slice(3 + fence[1].length);
        if (rest.trim() && rest.trimEnd().endsWith("```")) {
          body.push(rest.trimEnd().slice(0, -3));
        } else {
          if (rest.trim()) body.push(rest);
          i += 1;
          while (i < source.length && !source[i].startsWith("```")) {
            body.push(source[i]);
            i += 1;
          }
        }
        const pre = el("pre", "code-block");
        pre.append(el("code", null, body.join("\n")));
        root.append(pre);
        continue;
      }
      const heading = /^(#{1,3}) (.+)$/.exec(line);
      if (heading) {
        flush();
        const node = el(`h${heading[1].length + 2}`, "md-heading");
        node.append(inline(heading[2]));
        root.append(node);
        continue;
      }
      if (/^-# /.test(line)) {
        flush();
        const node = el("div", "md-subtext");
        node.append(inline(line.slice(3)));
        root.append(node);
        continue;
      }
      if (/^>>> /.test(line)) {
        flush();
        const quote = el("blockquote", "md-quote");
        lines([line.slice(4), ...source.slice(i + 1)].join("\n"), quote);
        root.append(quote);
        break;
      }
      if (/^> ?/.test(line)) {
        flush();
        const quoted = [];
        while (i < source.length && /^> ?/.test(source[i])) {
          quoted.push(source[i].replace(/^> ?/, ""));
          i += 1;
        }
        i -= 1;
        const quote = el("blockquote", "md-quote");
        lines(quoted.join("\n"), quote);
        root.append(quote);
        continue;
      }
      const item = /^(\s*)([-*]|\d+\.) (.+)$/.exec(line);
      if (item) {
        flush();
        const ordered = /\d/.test(item[2]);
        const list = el(ordered ? "ol" : "ul", "md-list");
        while (i < source.length) {
          const next = /^(\s*)([-*]|\d+\.) (.+)$/.exec(source[i]);
          if (!next || /\d/.test(next[2]) !== ordered) break;
          const li = el("li");
          if (next[1].length >= 2) li.className = "nested";
          li.append(inline(next[3]));
          list.append(li);
          i += 1;
        }
        i -= 1;
        root.append(list);
        continue;
      }
      paragraph.push(line);
    }
    flush();
    return root;
  }

  // ---------------------------------------------------------------- embeds

  function colour(value) {
    if (value === undefined || value === null) return "var(--embed-default)";
    return `#${Number(value).toString(16).padStart(6, "0")}`;
  }

  function embed(data) {
    const node = el("div", "embed");
    node.style.borderLeftColor = colour(data.color);
    const grid = el("div", "embed-grid");
    if (data.author && data.author.name) grid.append(el("div", "embed-author", data.author.name));
    if (data.title) {
      const title = el("div", "embed-title");
      title.append(data.url ? link(data.url, inline(data.title)) : inline(data.title));
      grid.append(title);
    }
    if (data.description) {
      const description = el("div", "embed-description");
      description.append(markdown(data.description));
      grid.append(description);
    }
    if (data.fields && data.fields.length) {
      const fields = el("div", "embed-fields");
      for (const field of data.fields) {
        const cell = el("div", field.inline ? "embed-field inline" : "embed-field");
        const name = el("div", "embed-field-name");
        name.append(inline(field.name));
        const value = el("div", "embed-field-value");
        value.append(markdown(field.value));
        cell.append(name, value);
        fields.append(cell);
      }
      grid.append(fields);
    }
    if (data.image && data.image.url) {
      const image = el("img", "embed-image");
      image.src = data.image.url;
      image.alt = data.title || "picture";
      image.loading = "lazy";
      grid.append(image);
    }
    if (data.thumbnail && data.thumbnail.url) {
      const thumb = el("img", "embed-thumbnail");
      thumb.src = data.thumbnail.url;
      thumb.alt = "";
      node.classList.add("has-thumbnail");
      node.append(thumb);
    }
    const footerText = data.footer && data.footer.text;
    if (footerText || data.timestamp) {
      const footer = el("div", "embed-footer");
      const parts = [];
      if (footerText) parts.push(footerText);
      if (data.timestamp) parts.push(when(data.timestamp));
      footer.textContent = parts.join(" • ");
      grid.append(footer);
    }
    node.prepend(grid);
    return node;
  }

  // ---------------------------------------------------------------- files and components

  function size(bytes) {
    if (bytes >= 1048576) return `${(bytes / 1048576).toFixed(1)} MB`;
    if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${bytes} bytes`;
  }

  function attachment(data) {
    if (data.image) {
      const anchor = el("a", "attachment-image");
      anchor.href = data.url;
      anchor.target = "_blank";
      anchor.rel = "noopener";
      const image = el("img");
      image.src = data.url;
      image.alt = data.description || data.filename;
      image.loading = "lazy";
      anchor.append(image);
      return anchor;
    }
    const box = el("div", "attachment-file");
    box.append(el("span", "file-icon", "📄"));
    const info = el("div", "file-info");
    const name = el("a", "file-name", data.filename);
    name.href = data.url;
    name.target = "_blank";
    name.rel = "noopener";
    info.append(name, el("div", "file-size", size(data.size)));
    box.append(info);
    return box;
  }

  const BUTTON_STYLES = { 1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium" };

  function button(message, data) {
    const node = el("button", `component-button ${BUTTON_STYLES[data.style] || "secondary"}`);
    node.type = "button";
    if (data.emoji && data.emoji.name) node.append(el("span", "emoji", data.emoji.name));
    if (data.label) node.append(el("span", null, data.label));
    node.disabled = Boolean(data.disabled);
    if (data.style === 5 && data.url) {
      node.addEventListener("click", () => {
        const jump = DISCORD_LINK.exec(data.url);
        if (jump) context.onJump(jump[2], jump[3] || null);
        else if (safeUrl(data.url)) window.open(data.url, "_blank", "noopener");
      });
    } else {
      node.addEventListener("click", () => context.onComponent(message, data, null, node));
    }
    return node;
  }

  function select(message, data) {
    const wrapper = el("div", "component-select");
    const node = el("select");
    node.disabled = Boolean(data.disabled);
    node.multiple = (data.max_values || 1) > 1;
    node.setAttribute("aria-label", data.placeholder || "Make a selection");
    if (!node.multiple) {
      const placeholder = el("option", null, data.placeholder || "Make a selection");
      placeholder.value = "";
      placeholder.disabled = true;
      placeholder.selected = true;
      node.append(placeholder);
    }
    for (const option of data.options || []) {
      const item = el("option", null, option.description ? `${option.label} — ${option.description}` : option.label);
      item.value = option.value;
      item.selected = Boolean(option.default); // shown as chosen only where the bot chose it
      node.append(item);
    }
    const send = () => {
      const values = Array.from(node.selectedOptions).map((o) => o.value).filter(Boolean);
      context.onComponent(message, data, values, node);
    };
    if (node.multiple) {
      const apply = el("button", "component-button secondary", "Choose");
      apply.type = "button";
      apply.addEventListener("click", send);
      wrapper.append(node, apply);
    } else {
      node.addEventListener("change", send);
      wrapper.append(node);
    }
    return wrapper;
  }

  function components(message, rows) {
    const box = el("div", "components");
    for (const row of rows) {
      const line = el("div", "component-row");
      for (const item of row.type === 1 ? row.components || [] : [row]) {
        if (item.type === 2) line.append(button(message, item));
        else if ([3, 5, 6, 7, 8].includes(item.type)) line.append(select(message, item));
      }
      box.append(line);
    }
    return box;
  }

  // ---------------------------------------------------------------- a message

  function hue(id) {
    let h = 0;
    for (const c of String(id)) h = (h * 31 + c.charCodeAt(0)) % 360;
    return h;
  }

  function avatar(author) {
    const node = el("div", "avatar", author.is_lorekeeper ? "📜" : (author.name || "?").trim().charAt(0).toUpperCase());
    node.setAttribute("aria-hidden", "true");
    if (!author.is_lorekeeper) node.style.background = `hsl(${hue(author.webhook ? author.name : author.id)} 45% 42%)`;
    else node.classList.add("lorekeeper");
    return node;
  }

  function header(data) {
    const head = el("header", "message-header");
    head.append(el("span", "author", data.author.name));
    if (data.author.bot) head.append(el("span", "bot-tag", data.author.webhook ? "NPC" : "APP"));
    const time = el("time", "message-time", when(data.timestamp));
    time.dateTime = data.timestamp || "";
    head.append(time);
    return head;
  }

  function message(data, { compact = false } = {}) {
    const node = el("article", compact ? "message compact" : "message");
    node.id = `m-${data.id}`;
    node.dataset.id = data.id;
    node.dataset.author = data.author.webhook ? `hook:${data.author.name}` : data.author.id;
    node.dataset.time = data.timestamp || "";
    if (data.ephemeral) node.classList.add("ephemeral");
    if (data.interaction) {
      const used = el("div", "interaction-line");
      used.append(el("span", "interaction-user", data.interaction.user));
      used.append(document.createTextNode(data.interaction.command ? " used " : " used a command"));
      if (data.interaction.command) used.append(el("span", "interaction-command", data.interaction.command));
      node.append(used);
    }
    const body = el("div", "message-body");
    if (!compact) {
      node.append(avatar(data.author));
      body.append(header(data));
    } else {
      const time = el("time", "compact-time", data.timestamp ? clock(new Date(data.timestamp)) : "");
      node.append(time);
    }
    if (data.loading) {
      body.append(el("div", "thinking", `${data.author.name} is thinking`));
    } else if (data.content) {
      const content = markdown(data.content);
      content.classList.add("content");
      if (data.edited) content.append(el("span", "edited", "(edited)"));
      body.append(content);
    }
    if (data.attachments.length) {
      const files = el("div", "attachments");
      data.attachments.forEach((a) => files.append(attachment(a)));
      body.append(files);
    }
    if (data.embeds.length) {
      const embeds = el("div", "embeds");
      data.embeds.forEach((e) => embeds.append(embed(e)));
      body.append(embeds);
    }
    if (data.components.length && !data.loading) body.append(components(data, data.components));
    if (data.ephemeral) {
      const note = el("div", "ephemeral-note");
      note.append(el("span", "eye", "👁"), document.createTextNode(" Only you can see this • "));
      const dismiss = el("button", "dismiss", "Dismiss message");
      dismiss.type = "button";
      dismiss.addEventListener("click", () => context.onDismiss(data.id));
      note.append(dismiss);
      body.append(note);
    }
    node.append(body);
    return node;
  }

  return { context, el, markdown, inline, embed, message, when };
})();
