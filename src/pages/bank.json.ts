/** Every question in the browser's shape, lab debriefs included, for practice quizzes and review (precached offline). */
import type { APIRoute } from 'astro';
import { getBank } from '../data/deck.ts';
import { getLabBank } from '../data/labs.ts';

export const GET: APIRoute = async () =>
  new Response(JSON.stringify([...(await getBank()), ...(await getLabBank())]), {
    headers: { 'Content-Type': 'application/json' },
  });
