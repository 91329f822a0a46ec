import { routeUtterance, type UtteranceInput } from '@app/domain/translation-routing';
import { initializeLogger, voice } from '@livekit/agents';
import { parseTargetTag } from './tagged-output';
import { TranslationAgent, translationTaskFor } from './translation-agent';
import { RecordingLLM } from '../../test/support/fakes';

initializeLogger({ pretty: false, level: 'error' });

const ROOM = ['de', 'en'] as const;

/** The agent the pipeline would use for this utterance, routed by the product's own routing. */
function agentFor(input: Omit<UtteranceInput, 'roomLanguages'>): TranslationAgent {
  const task = translationTaskFor(routeUtterance({ ...input, roomLanguages: ROOM }), ROOM);
  if (!task) throw new Error('this utterance is not translated');
  return new TranslationAgent(task);
}

/** An AgentSession without a room: text in, text out, the LLM is a local scripted fake. */
async function startSession(agent: TranslationAgent, responses: voice.testing.FakeLLMResponse[]) {
  const model = new RecordingLLM(responses);
  // `vad: null`: no default VAD model to load; there is no audio here.
  const session = new voice.AgentSession({ llm: model, vad: null, userAwayTimeout: null });
  sessions.push(session);
  await session.start({ agent });
  return { session, model };
}

const sessions: voice.AgentSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

const textOf = (message: voice.testing.MessageAssert) => message.event().item.textContent;

describe('TranslationAgent in an AgentSession without a room', () => {
  it.each([
    { speaker: 'de', text: 'Guten Morgen.', answer: 'Good morning.', from: 'de', into: 'en' },
    { speaker: 'en-GB', text: 'Good morning.', answer: 'Guten Morgen.', from: 'en', into: 'de' },
  ])('dual, speaker $speaker: one assistant message translating $from into $into', async ({ speaker, text, answer, from, into }) => {
    const { session, model } = await startSession(agentFor({ mode: 'dual', speakerLanguages: [speaker] }), [
      { input: text, content: answer },
    ]);

    const result = await session.run({ userInput: text }).wait();

    expect(textOf(result.expect.nextEvent().isMessage({ role: 'assistant' }))).toBe(answer);
    result.expect.noMoreEvents();
    expect(model.requests).toHaveLength(1);
    const [system, user] = model.requests[0]?.messages ?? [];
    expect(model.requests[0]?.messages).toHaveLength(2);
    expect(system?.role).toBe('system');
    expect(system?.text).toContain(`from language "${from}" into language "${into}"`);
    expect(system?.text).toContain('translation only');
    expect(user).toEqual({ role: 'user', text });
  });

  it('mono with a detected language: the detected language is the source, the other one the target', async () => {
    const { session, model } = await startSession(agentFor({ mode: 'mono', speakerLanguages: ROOM, detectedLanguage: 'en-US' }), [
      { input: 'Where is the station?', content: 'Wo ist der Bahnhof?' },
    ]);

    const result = await session.run({ userInput: 'Where is the station?' }).wait();

    expect(textOf(result.expect.nextEvent().isMessage({ role: 'assistant' }))).toBe('Wo ist der Bahnhof?');
    result.expect.noMoreEvents();
    expect(model.requests[0]?.messages[0]?.text).toContain('from language "en" into language "de"');
  });

  it.each([
    { text: 'Danke schön.', answer: 'en|Thank you very much.', target: 'en', rest: 'Thank you very much.' },
    { text: 'See you tomorrow.', answer: 'de|Bis morgen.', target: 'de', rest: 'Bis morgen.' },
  ])('mono without a detected language: the answer carries the target tag $target', async ({ text, answer, target, rest }) => {
    const { session, model } = await startSession(agentFor({ mode: 'mono', speakerLanguages: ROOM, detectedLanguage: null }), [
      { input: text, content: answer },
    ]);

    const result = await session.run({ userInput: text }).wait();

    const message = result.expect.nextEvent().isMessage({ role: 'assistant' });
    result.expect.noMoreEvents();
    expect(parseTargetTag(textOf(message) ?? '', ROOM)).toEqual({ kind: 'tagged', target, rest });
    const instructions = model.requests[0]?.messages[0];
    expect(instructions?.role).toBe('system');
    expect(instructions?.text).toContain('between language "de" and language "en"');
    expect(instructions?.text).toContain('Start your answer with the code of the language you translate into and "|"');
    expect(instructions?.text).not.toContain('from language');
  });

  it('translates each segment on its own: earlier turns of the session never reach the LLM', async () => {
    const { session, model } = await startSession(agentFor({ mode: 'dual', speakerLanguages: ['de'] }), [
      { input: 'Guten Morgen.', content: 'Good morning.' },
      { input: 'Wie geht es?', content: 'How are you?' },
    ]);

    await session.run({ userInput: 'Guten Morgen.' }).wait();
    const second = await session.run({ userInput: 'Wie geht es?' }).wait();

    expect(textOf(second.expect.nextEvent().isMessage({ role: 'assistant' }))).toBe('How are you?');
    second.expect.noMoreEvents();
    // The session's history holds both turns ...
    const history = session.history.items.flatMap((item) => (item.type === 'message' ? [item.textContent] : []));
    expect(history).toEqual(expect.arrayContaining(['Guten Morgen.', 'Good morning.', 'Wie geht es?', 'How are you?']));
    // ... but the second request is the instructions and the second segment only, as in SpeakerPipeline.
    expect(model.requests[1]?.messages.map((m) => [m.role, m.text])).toEqual([
      ['system', expect.stringContaining('from language "de" into language "en"')],
      ['user', 'Wie geht es?'],
    ]);
  });

  it('is not built for utterances the routing skips', () => {
    expect(translationTaskFor(routeUtterance({ mode: 'dual', roomLanguages: ROOM, speakerLanguages: ['fr'] }), ROOM)).toBeNull();
    expect(
      translationTaskFor(routeUtterance({ mode: 'mono', roomLanguages: ROOM, speakerLanguages: ROOM, detectedLanguage: 'fr' }), ROOM),
    ).toBeNull();
  });
});
