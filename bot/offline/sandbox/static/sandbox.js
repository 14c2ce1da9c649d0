// The sandbox page: who you are, the channels, the live stream, the message box.
"use strict";

(() => {
  const { el } = Render;
  const HEADER = { "X-Lorekeeper-Sandbox": "1" };
  const GROUP_MS = 7 * 60 * 1000;
  const TRIES = [
    { label: "Ask the lore", command: "lore ask", values: { question: "Who rules Saltmarch?" } },
    { label: "An entity card", command: "canon entity", values: { name: "Aldren Vale" } },
    { label: "A family tree", command: "canon tree", values: { name: "House Vale" } },
    { label: "Start a scene", command: "scene start", values: { title: "A night on the quays" }, gm: true },
  ];

  let state = null;
  let channelId = null;
  let stream = null;
  let pendingFiles = [];
  const dismissed = new Set();
  const unread = new Set();

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- talking to the sandbox

  async function post(path, body) {
    const options = { method: "POST", headers: { ...HEADER } };
    if (body instanceof FormData) options.body = body;
    else {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    try {
      const response = await fetch(path, options);
      const answer = await response.json().catch(() => ({}));
      if (!response.ok && !answer.error) answer.error = `The sandbox answered ${response.status}.`;
      return answer;
    } catch {
      return { error: "The sandbox does not answer: is it still running?" };
    }
  }

  async function get(path) {
    const response = await fetch(path);
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    return response.json();
  }

  function toast(text, level = "info") {
    const node = el("div", `toast ${level}`, text);
    node.setAttribute("role", level === "error" ? "alert" : "status");
    $("toasts").append(node);
    setTimeout(() => node.remove(), level === "error" ? 9000 : 5000);
  }

  // ---------------------------------------------------------------- identity, channels, banners

  function meId() {
    return localStorage.getItem("lk-sandbox-user") || "";
  }

  async function loadState() {
    state = await get(`/api/state?user=${encodeURIComponent(meId())}`);
    localStorage.setItem("lk-sandbox-user", state.me.id);
    const ctx = Render.context;
    ctx.people = new Map(state.people.map((p) => [p.id, p.name]));
    ctx.people.set(state.bot.id, state.bot.name);
    ctx.roles = new Map(state.roles.map((r) => [r.id, r.name]));
    ctx.channels = new Map(state.channels.map((c) => [c.id, c.name]));
    $("guild-name").textContent = state.guild.name;
    drawPeople();
    drawChannels();
    drawBanners();
    drawTries();
  }

  function drawPeople() {
    const who = $("who");
    who.replaceChildren();
    for (const person of state.people) {
      const option = el("option", null, person.gm ? `${person.name} (GM)` : `${person.name} (player)`);
      option.value = person.id;
      option.selected = person.id === state.me.id;
      who.append(option);
    }
    $("me-name").textContent = state.me.name;
    $("me-role").textContent = state.me.gm ? "Game master" : "Player";
    $("me-avatar").textContent = state.me.name.charAt(0);
    const members = $("members");
    members.replaceChildren();
    const groups = [
      ["GM", state.people.filter((p) => p.gm)],
      ["Players", state.people.filter((p) => !p.gm)],
      ["Apps", [{ id: state.bot.id, name: state.bot.name, bot: true }]],
    ];
    for (const [title, people] of groups) {
      members.append(el("h3", "member-group", `${title} — ${people.length}`));
      for (const person of people) {
        const row = el("div", person.id === state.me.id ? "member me" : "member");
        const badge = el("span", "member-avatar", person.bot ? "📜" : person.name.charAt(0));
        row.append(badge, el("span", "member-name", person.name));
        if (person.bot) row.append(el("span", "bot-tag", "APP"));
        if (person.id === state.me.id) row.append(el("span", "you", "you"));
        members.append(row);
      }
    }
  }

  function drawChannels() {
    const list = $("channels");
    list.replaceChildren();
    for (const channel of state.channels) {
      const item = el("button", "channel");
      item.type = "button";
      item.dataset.id = channel.id;
      item.append(el("span", "hash", "#"), el("span", "channel-label", channel.name));
      if (channel.id === channelId) {
        item.classList.add("active");
        item.setAttribute("aria-current", "page");
      }
      if (unread.has(channel.id)) item.classList.add("unread");
      item.addEventListener("click", () => openChannel(channel.id));
      list.append(item);
    }
  }

  function drawBanners() {
    const box = $("banners");
    box.replaceChildren();
    if (!state.llm.configured && localStorage.getItem("lk-llm-banner") !== "closed") {
      // One line; "more" opens what needs a language model and how to set one.
      const banner = el("div", "banner llm");
      const text = el("div", "banner-text");
      text.append(el("strong", null, "No language model: "));
      text.append(document.createTextNode("narration and NPC speech are off; everything else works. "));
      const more = el("button", "banner-more", "more");
      more.type = "button";
      more.setAttribute("aria-expanded", "false");
      const details = el("div", "banner-details");
      details.hidden = true;
      details.append(document.createTextNode(`These need one: ${state.llm.needs_it.join(", ")}. `));
      details.append(document.createTextNode("Set LOREKEEPER_LLM__BASE_URL and LOREKEEPER_LLM__MODEL (any OpenAI-compatible endpoint) and restart the sandbox."));
      more.addEventListener("click", () => {
        details.hidden = !details.hidden;
        more.textContent = details.hidden ? "more" : "less";
        more.setAttribute("aria-expanded", String(!details.hidden));
      });
      text.append(more, details);
      const close = el("button", "banner-close", "×");
      close.type = "button";
      close.setAttribute("aria-label", "Hide this notice");
      close.addEventListener("click", () => {
        localStorage.setItem("lk-llm-banner", "closed");
        drawBanners();
      });
      banner.append(text, close);
      box.append(banner);
    }
    if (state.sample.loading) {
      box.append(el("div", "banner sample", "Importing the sample world… the GM’s imports appear in #lore-library, then a short scene in #the-gilded-eel."));
    } else if (!state.sample.loaded && !state.sample.campaign_started && state.me.gm) {
      const banner = el("div", "banner sample");
      banner.append(el("span", "banner-text", "Your campaign is empty. Import the Saltcoast, a small sample world with a scene to review, or your own files with /lore import. "));
      const load = el("button", "banner-action", "Import the sample world");
      load.type = "button";
      load.addEventListener("click", async () => {
        const answer = await post("/api/sample", { user: state.me.id });
        if (answer.error) toast(answer.error, "error");
        else {
          state.sample.loading = true;
          drawBanners();
        }
      });
      banner.append(load);
      box.append(banner);
    }
  }

  function drawTries() {
    const box = $("tries");
    box.replaceChildren();
    if (!state.sample.loaded) return;
    box.append(el("span", "tries-label", "Try:"));
    for (const item of TRIES) {
      if (item.gm && !state.me.gm) continue;
      const command = Picker.byName(item.command);
      if (!command) continue;
      const button = el("button", "try", item.label);
      button.type = "button";
      button.title = `/${item.command}`;
      button.addEventListener("click", () => Picker.choose(command, item.values));
      box.append(button);
    }
  }

  async function switchTo(userId) {
    localStorage.setItem("lk-sandbox-user", userId);
    dismissed.clear();
    Picker.closeForm();
    await loadState();
    connect();
    await openChannel(channelId || state.first_channel);
  }

  // ---------------------------------------------------------------- messages

  function sortKey(id) {
    return BigInt(id);
  }

  function compactAfter(previous, data) {
    if (!previous || data.interaction || previous.classList.contains("ephemeral") || data.ephemeral) return false;
    if (previous.dataset.author !== (data.author.webhook ? `hook:${data.author.name}` : data.author.id)) return false;
    return Math.abs(new Date(data.timestamp) - new Date(previous.dataset.time)) < GROUP_MS;
  }

  function place(data) {
    if (dismissed.has(data.id)) return;
    const list = $("messages");
    const existing = document.getElementById(`m-${data.id}`);
    const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
    let before = null;
    for (const node of list.querySelectorAll("article.message")) {
      if (sortKey(node.dataset.id) > sortKey(data.id)) {
        before = node;
        break;
      }
    }
    const previous = before ? before.previousElementSibling : list.lastElementChild;
    const prior = previous && previous !== existing ? previous : existing && existing.previousElementSibling;
    const node = Render.message(data, { compact: compactAfter(prior && prior.matches("article") ? prior : null, data) });
    if (existing) existing.replaceWith(node);
    else list.insertBefore(node, before);
    $("empty").hidden = true;
    if (nearBottom || !existing) {
      list.scrollTop = list.scrollHeight;
      // A picture grows the message once loaded: stay at the bottom when we were there.
      node.querySelectorAll("img").forEach((img) => img.addEventListener("load", () => { list.scrollTop = list.scrollHeight; }, { once: true }));
    }
  }

  async function openChannel(id, focusMessage = null) {
    channelId = id;
    unread.delete(id);
    const channel = state.channels.find((c) => c.id === id) || state.channels[0];
    $("channel-name").textContent = channel.name;
    $("channel-topic").textContent = channel.topic || "";
    $("input").placeholder = `Message #${channel.name}`;
    drawChannels();
    const list = $("messages");
    list.querySelectorAll("article").forEach((n) => n.remove());
    const messages = await get(`/api/channels/${id}/messages?user=${state.me.id}`);
    messages.forEach(place);
    $("empty").hidden = messages.length > 0;
    $("empty-channel").textContent = `#${channel.name}`;
    list.scrollTop = list.scrollHeight;
    if (focusMessage) {
      const target = document.getElementById(`m-${focusMessage}`);
      if (target) {
        target.scrollIntoView({ block: "center" });
        target.classList.add("flash");
        setTimeout(() => target.classList.remove("flash"), 2000);
      }
    }
    document.title = `#${channel.name} · Lorekeeper sandbox`;
  }

  function onLive(event) {
    const change = JSON.parse(event.data);
    const channel = change.op === "delete" ? change.channel_id : change.message.channel_id;
    if (channel !== channelId) {
      if (change.op === "create") {
        unread.add(channel);
        drawChannels();
      }
      return;
    }
    if (change.op === "delete") {
      const node = document.getElementById(`m-${change.id}`);
      if (node) node.remove();
    } else {
      place(change.message);
    }
  }

  function connect() {
    if (stream) stream.close();
    stream = new EventSource(`/api/events?user=${encodeURIComponent(state.me.id)}`);
    let dropped = false;
    stream.addEventListener("message", onLive);
    stream.addEventListener("notice", (event) => {
      const notice = JSON.parse(event.data);
      toast(notice.text, notice.level);
    });
    stream.addEventListener("sample", async () => {
      await loadState();
      if (channelId) await openChannel(channelId);
    });
    stream.addEventListener("open", () => {
      $("offline").hidden = true;
      if (dropped && channelId) openChannel(channelId); // catch up with what happened meanwhile
      dropped = false;
    });
    stream.addEventListener("error", () => {
      dropped = true;
      $("offline").hidden = false;
    });
  }

  // ---------------------------------------------------------------- the message box

  function drawPendingFiles() {
    const box = $("pending-files");
    box.replaceChildren();
    pendingFiles.forEach((file, index) => {
      const chip = el("div", "pending-file");
      chip.append(el("span", null, `📎 ${file.name}`));
      const remove = el("button", "remove-file", "×");
      remove.type = "button";
      remove.setAttribute("aria-label", `Remove ${file.name}`);
      remove.addEventListener("click", () => {
        pendingFiles.splice(index, 1);
        drawPendingFiles();
      });
      chip.append(remove);
      box.append(chip);
    });
    box.hidden = !pendingFiles.length;
  }

  async function sendMessage() {
    const input = $("input");
    const content = input.value;
    if (!content.trim() && !pendingFiles.length) return;
    const body = new FormData();
    body.append("payload", JSON.stringify({ user: state.me.id, channel: channelId, content }));
    pendingFiles.forEach((file) => body.append("files", file, file.name));
    input.value = "";
    const files = pendingFiles;
    pendingFiles = [];
    drawPendingFiles();
    resize();
    const answer = await post("/api/messages", body);
    if (answer.error) {
      toast(answer.error, "error");
      input.value = content;
      pendingFiles = files;
      drawPendingFiles();
    }
  }

  function resize() {
    const input = $("input");
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 240)}px`;
  }

  function wireComposer() {
    const input = $("input");
    input.addEventListener("keydown", (event) => {
      if (Picker.onComposerKey(event)) {
        event.preventDefault();
        return;
      }
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        const exact = input.value.trim().startsWith("/") && Picker.byName(input.value.trim().slice(1));
        if (exact) Picker.choose(exact);
        else sendMessage();
      }
    });
    input.addEventListener("input", () => {
      resize();
      Picker.onComposerInput(input.value);
    });
    $("composer").addEventListener("submit", (event) => {
      event.preventDefault();
      sendMessage();
    });
    $("files").addEventListener("change", (event) => {
      pendingFiles.push(...event.target.files);
      event.target.value = "";
      drawPendingFiles();
      input.focus();
    });
    $("command-form").addEventListener("keydown", Picker.onFormKey);
    $("who").addEventListener("change", (event) => switchTo(event.target.value));
  }

  async function onComponent(message, component, values, node) {
    if (node) node.disabled = true;
    const answer = await post("/api/click", {
      user: state.me.id,
      message: message.id,
      custom_id: component.custom_id,
      values,
    });
    if (node && document.body.contains(node)) node.disabled = Boolean(component.disabled);
    if (answer.error) toast(answer.error, "error");
    else if (answer.modal) Picker.showModal(answer.modal, answer.interaction_id);
  }

  async function start() {
    Render.context.onJump = (channel, message) => openChannel(channel, message);
    Render.context.onDismiss = (id) => {
      dismissed.add(id);
      const node = document.getElementById(`m-${id}`);
      if (node) node.remove();
    };
    Render.context.onComponent = onComponent;
    Picker.init({
      state: () => state,
      channelId: () => channelId,
      post,
      toast,
      focusComposer: () => $("input").focus(),
    });
    wireComposer();
    await loadState();
    connect();
    await openChannel(state.first_channel);
    $("input").focus();
    document.body.dataset.ready = "true";
    performance.mark("lk-ready"); // the page load the benchmark measures
  }

  start().catch((error) => {
    toast(`The page could not start: ${error.message}`, "error");
  });
})();
